import { NO_ARGUMENTS, READ_ONLY, answer, oncePerCatalog, schema, type Tool } from './tool.js';

export const getEndorsements: Tool = {
  definition: {
    name: 'get_endorsements',
    title: 'Get endorsements',
    description:
      'List the endorsements of this registry: who vouches for the curator (name, public key, URL, since when). ' +
      'Says so plainly when there are none yet. Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    outputSchema: schema.object({
      registryVersion: schema.string,
      endorsements: {
        type: 'array',
        items: schema.object({ name: schema.string, pubkey: schema.string, url: schema.string, since: schema.string }),
      },
    }),
    annotations: READ_ONLY,
  },

  run: oncePerCatalog(({ registry }) => {
    const endorsements = registry.endorsements.map(({ name, pubkey, url, since }) => ({ name, pubkey, url, since }));
    const n = endorsements.length;
    const text =
      n === 0
        ? `There are no endorsements yet for registry version ${registry.version}. Nobody has vouched for this curator so far.`
        : `${n} endorsement${n === 1 ? '' : 's'} of registry version ${registry.version}:\n\n` +
          endorsements
            .map((e, i) => [`${i + 1}. ${e.name}`, `   Public key: ${e.pubkey}`, `   URL: ${e.url}`, `   Since: ${e.since}`].join('\n'))
            .join('\n\n');
    return answer(text, { registryVersion: registry.version, endorsements });
  }),
};
