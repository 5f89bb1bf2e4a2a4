import { isDeepStrictEqual } from 'node:util';
import type { Category, Endorsement, Registry, Source } from '../registry/types.js';

/**
 * One difference between two registries, in the words the history, `sign` and `diff` share.
 * Sources are compared by category and rank: another URL at a rank is a removal and an addition.
 */
export type Change =
  | { readonly change: 'added' | 'removed'; readonly category: string }
  | { readonly change: 'changed'; readonly category: string; readonly fields: readonly string[] }
  | { readonly change: 'added' | 'removed'; readonly category: string; readonly rank: number; readonly url: string }
  | { readonly change: 'changed'; readonly category: string; readonly rank: number; readonly url: string; readonly fields: readonly string[] }
  | { readonly change: 'added' | 'removed'; readonly endorsement: string; readonly name: string }
  | { readonly change: 'changed'; readonly endorsement: string; readonly name: string; readonly fields: readonly string[] }
  | { readonly change: 'changed'; readonly curator: readonly string[] };

/** What a comparison of a registry with "nothing signed before" starts from. */
export const NO_REGISTRY: Pick<Registry, 'categories' | 'endorsements' | 'curator'> = {
  categories: {},
  endorsements: [],
  curator: { name: '', pubkey: '' },
};

function differingFields<T extends object> (a: T, b: T, fields: readonly (keyof T & string)[]): string[] {
  return fields.filter((f) => !isDeepStrictEqual(a[f], b[f]));
}

const CATEGORY_FIELDS = ['name', 'description', 'tags', 'keywords', 'queryPatterns', 'notAbout'] as const satisfies readonly (keyof Category)[];
const SOURCE_FIELDS = ['name', 'type', 'why'] as const satisfies readonly (keyof Source)[];
const ENDORSEMENT_FIELDS = ['url', 'name', 'since'] as const satisfies readonly (keyof Endorsement)[];

function sourceChanges (slug: string, before: Category, after: Category): Change[] {
  const changes: Change[] = [];
  for (const next of after.sources) {
    const prev = before.sources.find((s) => s.rank === next.rank);
    if (prev !== undefined && prev.url === next.url) {
      const fields = differingFields(prev, next, SOURCE_FIELDS);
      if (fields.length > 0) changes.push({ change: 'changed', category: slug, rank: next.rank, url: next.url, fields });
      continue;
    }
    if (prev !== undefined) changes.push({ change: 'removed', category: slug, rank: prev.rank, url: prev.url });
    changes.push({ change: 'added', category: slug, rank: next.rank, url: next.url });
  }
  return changes;
}

/**
 * Everything that differs from `before` to `after`, in a stable order: curator, endorsements
 * (by key), then categories by slug (each followed by its sources by rank). The version and
 * date are not listed: every signed version has its own.
 */
export function registryChanges (before: Pick<Registry, 'categories' | 'endorsements' | 'curator'>, after: Pick<Registry, 'categories' | 'endorsements' | 'curator'>): Change[] {
  const changes: Change[] = [];
  const curator = differingFields(before.curator, after.curator, ['name', 'pubkey']);
  if (before !== NO_REGISTRY && curator.length > 0) changes.push({ change: 'changed', curator });

  const endorsed = (list: readonly Endorsement[]) => new Map(list.map((e) => [e.pubkey, e]));
  const [oldEndorsed, newEndorsed] = [endorsed(before.endorsements), endorsed(after.endorsements)];
  for (const key of [...new Set([...oldEndorsed.keys(), ...newEndorsed.keys()])].sort()) {
    const prev = oldEndorsed.get(key);
    const next = newEndorsed.get(key);
    if (prev === undefined) changes.push({ change: 'added', endorsement: key, name: next!.name });
    else if (next === undefined) changes.push({ change: 'removed', endorsement: key, name: prev.name });
    else {
      const fields = differingFields(prev, next, ENDORSEMENT_FIELDS);
      if (fields.length > 0) changes.push({ change: 'changed', endorsement: key, name: next.name, fields });
    }
  }

  for (const slug of [...new Set([...Object.keys(before.categories), ...Object.keys(after.categories)])].sort()) {
    // Own properties only: "constructor" is a valid slug, and an inherited value is not a category.
    const prev = Object.hasOwn(before.categories, slug) ? before.categories[slug] : undefined;
    const next = Object.hasOwn(after.categories, slug) ? after.categories[slug] : undefined;
    if (prev === undefined) {
      changes.push({ change: 'added', category: slug });
      for (const s of next!.sources) changes.push({ change: 'added', category: slug, rank: s.rank, url: s.url });
    } else if (next === undefined) {
      changes.push({ change: 'removed', category: slug });
    } else {
      const fields = differingFields(prev, next, CATEGORY_FIELDS);
      if (fields.length > 0) changes.push({ change: 'changed', category: slug, fields });
      changes.push(...sourceChanges(slug, prev, next));
    }
  }
  return changes;
}

/** One line per change, e.g. `changed source rust-learning #2 (https://...): why`. */
export function describeChange (c: Change): string {
  const fields = 'fields' in c ? `: ${c.fields.join(', ')}` : '';
  if ('curator' in c) return `changed curator: ${c.curator.join(', ')}`;
  if ('endorsement' in c) return `${c.change} endorsement ${c.name} (${c.endorsement})${fields}`;
  if ('rank' in c) return `${c.change} source ${c.category} #${c.rank} (${c.url})${fields}`;
  return `${c.change} category ${c.category}${fields}`;
}

/** The categories a change touches (none for curator and endorsement changes). */
export function changedCategory (c: Change): string | undefined {
  return 'category' in c ? c.category : undefined;
}
