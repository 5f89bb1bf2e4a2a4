import { NO_ARGUMENTS, READ_ONLY, answer, oncePerCatalog, schema, type Tool } from './tool.js';

export const listCategories: Tool = {
  definition: {
    name: 'list_categories',
    title: 'List categories',
    description:
      'List every topic category in the registry, sorted by slug: slug, display name, domain tags and a one-line description. ' +
      'Use it to see what Three Good Sources covers, or to rephrase a get_sources query that found no match. Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    outputSchema: schema.object({
      registryVersion: schema.string,
      categories: {
        type: 'array',
        items: schema.object({ slug: schema.string, name: schema.string, tags: schema.strings, description: schema.string }),
      },
    }),
    annotations: READ_ONLY,
  },

  run: oncePerCatalog(({ registry }) => {
    const categories = Object.keys(registry.categories)
      .sort()
      .map((slug) => {
        const c = registry.categories[slug]!;
        return { slug, name: c.name, tags: [...c.tags], description: c.description };
      });
    const text =
      categories.length === 0
        ? 'The registry has no categories yet.'
        : `${categories.length} categories (registry version ${registry.version}):\n\n` +
          categories.map((c) => [`${c.slug}: ${c.name}`, `   Tags: ${c.tags.join(', ')}`, `   ${c.description}`].join('\n')).join('\n\n');
    return answer(text, { registryVersion: registry.version, categories });
  }),
};
