import { NO_ARGUMENTS, READ_ONLY, text, type Tool } from './tool.js';

export const getProvenance: Tool = {
  definition: {
    name: 'get_provenance',
    title: 'Get provenance',
    description:
      'Tell who curated the registry behind these sources: curator name and public key, registry version and date, ' +
      'how many endorsements it has, and how to check what this server serves. Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    annotations: READ_ONLY,
  },

  run(_args, { registry }) {
    const categories = Object.keys(registry.categories).length;
    return text(
      [
        `Curator: ${registry.curator.name}`,
        `Public key: ${registry.curator.pubkey || 'not configured'}`,
        `Registry version: ${registry.version}`,
        `Registry updated: ${registry.updated}`,
        `Categories: ${categories}`,
        `Endorsements: ${registry.endorsements.length}`,
        '',
        'Verification: this registry is not signed yet, so there is no signature to check. ' +
          'What you can check today: GET /registry on this server returns the registry exactly as loaded, ' +
          'and every source in a get_sources answer comes from it unchanged.',
      ].join('\n'),
    );
  },
};
