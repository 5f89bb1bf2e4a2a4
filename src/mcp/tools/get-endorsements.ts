import { endorsementFacts } from '../../federation/endorsement-facts.js';
import { NO_ARGUMENTS, READ_ONLY, answer, schema, type Tool } from './tool.js';

export const getEndorsements: Tool = {
  definition: {
    name: 'get_endorsements',
    title: 'Get endorsements',
    description:
      'List the curators this registry endorses (name, public key, URL, since when) and, for each, the state of its registry here: ' +
      'fresh, stale (its copy is old: the peer has not answered lately) or unavailable (no verified copy), with its registry version. ' +
      'get_federated_sources answers from them. Says so plainly when there are none yet. Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    outputSchema: schema.object({
      registryVersion: schema.string,
      endorsements: {
        type: 'array',
        items: schema.object({
          name: schema.string,
          pubkey: schema.string,
          url: schema.string,
          since: schema.string,
          state: { enum: ['fresh', 'stale', 'unavailable'] },
          peerRegistryVersion: { anyOf: [schema.string, { type: 'null' }] },
          lastSuccess: { anyOf: [schema.string, { type: 'null' }] },
        }),
      },
    }),
    annotations: READ_ONLY,
  },

  // Peer states change with time: computed on every call (a few fields per endorsement).
  run (_args, { registry }, context) {
    const endorsements = endorsementFacts(registry, context?.federation);
    const n = endorsements.length;
    const text =
      n === 0
        ? `There are no endorsements yet in registry version ${registry.version}: this curator vouches for no other curator so far.`
        : `This curator endorses ${n} curator${n === 1 ? '' : 's'} (registry version ${registry.version}):\n\n` +
          endorsements
            .map((e, i) =>
              [
                `${i + 1}. ${e.name}`,
                `   Public key: ${e.pubkey}`,
                `   URL: ${e.url}`,
                `   Since: ${e.since}`,
                `   Their registry here: ${e.state}${e.peerRegistryVersion === null ? '' : `, version ${e.peerRegistryVersion}`}${e.lastSuccess === null ? '' : `, last fetched ${e.lastSuccess}`}`,
              ].join('\n')
            )
            .join('\n\n');
    return answer(text, { registryVersion: registry.version, endorsements });
  },
};
