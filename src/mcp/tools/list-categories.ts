import { NO_ARGUMENTS, READ_ONLY, text, type Tool } from './tool.js';

export const listCategories: Tool = {
  definition: {
    name: 'list_categories',
    title: 'List categories',
    description:
      'List every topic category in the registry, sorted by slug: slug, display name, domain tags and a one-line description. ' +
      'Use it to see what Three Good Sources covers, or to rephrase a get_sources query that found no match. Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    annotations: READ_ONLY,
  },

  run(_args, { registry }) {
    const slugs = Object.keys(registry.categories).sort();
    if (slugs.length === 0) return text('The registry has no categories yet.');
    const blocks = slugs.map((slug) => {
      const c = registry.categories[slug]!;
      return [`${slug}: ${c.name}`, `   Tags: ${c.tags.join(', ')}`, `   ${c.description}`].join('\n');
    });
    return text(`${slugs.length} categories (registry version ${registry.version}):\n\n${blocks.join('\n\n')}`);
  },
};
