import { NO_ARGUMENTS, READ_ONLY, text, type Tool } from './tool.js';

export const getEndorsements: Tool = {
  definition: {
    name: 'get_endorsements',
    title: 'Get endorsements',
    description:
      'List the endorsements of this registry: who vouches for the curator (name, public key, URL, since when). ' +
      'Says so plainly when there are none yet. Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    annotations: READ_ONLY,
  },

  run(_args, { registry }) {
    const list = registry.endorsements;
    if (list.length === 0) {
      return text(`There are no endorsements yet for registry version ${registry.version}. Nobody has vouched for this curator so far.`);
    }
    const blocks = list.map((e, i) =>
      [`${i + 1}. ${e.name}`, `   Public key: ${e.pubkey}`, `   URL: ${e.url}`, `   Since: ${e.since}`].join('\n'),
    );
    return text(`${list.length} endorsement${list.length === 1 ? '' : 's'} of registry version ${registry.version}:\n\n${blocks.join('\n\n')}`);
  },
};
