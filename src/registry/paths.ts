import { SOURCES_PER_CATEGORY } from './schema.js';

/**
 * How every registry message names a place in the file, the way a curator reads it: fields
 * joined by dots as the file spells them (`categories.rust-learning.sources`), an entry of a
 * list by a singular noun and its number counted from 1 (`keyword 2`, `endorsement 1`), and a
 * source by its rank (`categories.rust-learning.source rank 3.url`). A source whose rank is
 * missing, out of range or shared goes by its position instead (`source in position 2`).
 * The whole file is `registry`.
 */

const ENTRY_NOUNS: Readonly<Record<string, string>> = {
  sources: 'source',
  endorsements: 'endorsement',
  keywords: 'keyword',
  tags: 'tag',
  queryPatterns: 'query pattern',
  notAbout: 'not-about entry',
};

export const WHOLE_REGISTRY = 'registry';

export function joinPath (...parts: readonly string[]): string {
  return parts.length === 0 ? WHOLE_REGISTRY : parts.join('.');
}

/** `keyword 2` for the second entry of a category's `keywords`. */
export function entryLabel (list: string, index: number): string {
  return `${ENTRY_NOUNS[list] ?? 'entry'} ${index + 1}`;
}

export function sourceByRank (rank: number): string {
  return `source rank ${rank}`;
}

/** Labels for each source of a list as written: by rank when the rank names it alone, else by position. */
export function sourceLabels (sources: readonly unknown[]): string[] {
  const ranks = sources.map((s) => (s !== null && typeof s === 'object' && 'rank' in s ? s.rank : undefined));
  return ranks.map((rank, i) =>
    typeof rank === 'number' && Number.isInteger(rank) && rank >= 1 && rank <= SOURCES_PER_CATEGORY && ranks.indexOf(rank) === ranks.lastIndexOf(rank)
      ? sourceByRank(rank)
      : `source in position ${i + 1}`
  );
}

export function categoryPath (slug: string, ...rest: readonly string[]): string {
  return joinPath('categories', slug, ...rest);
}

export function endorsementPath (index: number, ...rest: readonly string[]): string {
  return joinPath(entryLabel('endorsements', index), ...rest);
}

/** The curator's name for a JSON pointer (as Ajv reports it) into the registry `data`. */
export function pathOfPointer (pointer: string, data: unknown): string {
  if (pointer === '') return WHOLE_REGISTRY;
  const parts: string[] = [];
  let node = data;
  let field = '';
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const index = Number(key);
      const label = field === 'sources' ? sourceLabels(node)[index] : entryLabel(field, index);
      // The list's own field gives way to its entry: `keyword 2`, not `keywords.keyword 2`.
      if (parts.length > 0 && parts[parts.length - 1] === field) parts.pop();
      parts.push(label ?? entryLabel(field, index));
      node = node[index];
      field = '';
    } else {
      parts.push(key);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
      field = key;
    }
  }
  return joinPath(...parts);
}
