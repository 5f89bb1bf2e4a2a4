import { NO_ARGUMENTS, READ_ONLY, answer, schema, type Tool } from './tool.js';

const VERIFICATION =
  'This registry is not signed yet, so there is no signature to check. ' +
  'What you can check today: GET /registry on this server returns the registry exactly as loaded, ' +
  'and every source in a get_sources answer comes from it unchanged.';

export const getProvenance: Tool = {
  definition: {
    name: 'get_provenance',
    title: 'Get provenance',
    description:
      'Tell who curated the registry behind these sources: curator name and public key, registry version and date, ' +
      'how many endorsements it has, and how to check what this server serves. Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    outputSchema: schema.object({
      curator: schema.object({ name: schema.string, pubkey: { type: ['string', 'null'] } }),
      registry: schema.object({ version: schema.string, updated: schema.string, categories: { type: 'integer' } }),
      endorsements: { type: 'integer', minimum: 0 },
      signed: { type: 'boolean' },
      verification: schema.string,
    }),
    annotations: READ_ONLY,
  },

  run(_args, { registry }) {
    const categories = Object.keys(registry.categories).length;
    const pubkey = registry.curator.pubkey || null;
    const text = [
      `Curator: ${registry.curator.name}`,
      `Public key: ${pubkey ?? 'not configured'}`,
      `Registry version: ${registry.version}`,
      `Registry updated: ${registry.updated}`,
      `Categories: ${categories}`,
      `Endorsements: ${registry.endorsements.length}`,
      '',
      `Verification: ${VERIFICATION}`,
    ].join('\n');
    return answer(text, {
      curator: { name: registry.curator.name, pubkey },
      registry: { version: registry.version, updated: registry.updated, categories },
      endorsements: registry.endorsements.length,
      signed: false,
      verification: VERIFICATION,
    });
  },
};
