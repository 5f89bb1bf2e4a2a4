import { validateRegistry } from '../../src/registry/validate.js';
import type { Registry } from '../../src/registry/types.js';

/** What a small test category states; tags, sources and the rest are filled in. */
export interface SmallCategory {
  readonly name: string;
  readonly description: string;
  readonly keywords?: readonly string[];
  /** Its example questions: `<name> basics` when none are given. */
  readonly queryPatterns?: readonly string[];
}

const source = (rank: number) => ({ rank, name: `Source ${rank}`, url: `https://example.org/${rank}`, type: 'article', why: 'A good source.' });

/** A valid registry of the given categories, each with three placeholder sources. */
export function smallRegistry (categories: Readonly<Record<string, SmallCategory>>): Registry {
  const check = validateRegistry({
    version: '1.0.0',
    updated: '2026-11-28',
    curator: { name: 'Test', pubkey: '' },
    endorsements: [],
    categories: Object.fromEntries(
      Object.entries(categories).map(([slug, c]) => [
        slug,
        {
          name: c.name,
          description: c.description,
          tags: [c.name.toLowerCase()],
          keywords: c.keywords ?? [],
          queryPatterns: c.queryPatterns ?? [`${c.name.toLowerCase()} basics`],
          sources: [source(1), source(2), source(3)],
        },
      ])
    ),
  });
  if (!check.ok) throw new Error(check.problems.join());
  return check.registry;
}
