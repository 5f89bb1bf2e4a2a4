import type { Category } from '../registry/types.js';
import { OverlayMap } from '../util/overlay-map.js';
import { runAtOnce } from '../util/slices.js';
import { indexSteps, readingOf, termOf, type CategoryReading, type Exclusion, type Keywords, type MatcherIndex, type ReadingCache, type Term } from './index.js';
import type { MatcherRules } from './rules.js';

/**
 * A registry's index that can be had again with one category's example questions or not-about
 * entries added (what triage suggests), entering only that category's words again: at 1,000
 * categories, indexing the whole registry anew took most of the time of judging a suggestion.
 * The result is what indexSteps would build for the edited registry, and its vocabulary is in the
 * order indexSteps would give it (a word first written by the edited category moves to its turn),
 * since typo candidates tie on that order.
 */
export class EditableIndex {
  readonly index: MatcherIndex;
  /** The words typos are corrected into, in the order indexSteps gives them. */
  readonly vocabulary: readonly string[];
  /** The number of the category that first wrote each word of the vocabulary. */
  readonly #writtenBy: ReadonlyMap<string, number>;
  readonly #rules: MatcherRules;
  readonly #readings: ReadingCache;

  private constructor (
    index: MatcherIndex,
    vocabulary: readonly string[],
    writtenBy: ReadonlyMap<string, number>,
    rules: MatcherRules,
    readings: ReadingCache
  ) {
    this.index = index;
    this.vocabulary = vocabulary;
    this.#writtenBy = writtenBy;
    this.#rules = rules;
    this.#readings = readings;
  }

  /** The registry's index, built whole once (with `readings`, kept for the edits to come). */
  static of (registry: MatcherIndex['registry'], rules: MatcherRules, readings: ReadingCache): EditableIndex {
    const index = runAtOnce(indexSteps(registry, rules, undefined, readings));
    const writtenBy = new Map<string, number>();
    index.slugs.forEach((slug, id) => {
      for (const word of spelledBy(reading(slug, registry.categories[slug] as Category, rules, readings))) if (!writtenBy.has(word)) writtenBy.set(word, id);
    });
    return new EditableIndex(index, [...index.spellings.keys()], writtenBy, rules, readings);
  }

  /**
   * The index with category `slug` as `edited`; undefined when the edit changes more than example
   * questions and not-about entries (its name, description, tags or keywords: index anew).
   */
  with (slug: string, edited: Category): EditableIndex | undefined {
    const ix = this.index;
    const id = ix.idOfSlug.get(slug);
    if (id === undefined) return undefined;
    const before = reading(slug, ix.registry.categories[slug] as Category, this.#rules, this.#readings);
    const after = reading(slug, edited, this.#rules, this.#readings);
    if (!sameOutsideWords(before, after)) return undefined;
    const keywords: Keywords[] = [...ix.keywords];
    keywords[id] = after.keywords;
    const words = this.#vocabularyWith(id, after);
    if (words === undefined) return undefined;
    const { vocabulary, writtenBy } = words;
    const spellings = new Map<string, string | undefined>();
    let longestWord = ix.longestWord;
    for (const { word, stem } of [...after.owned.filter((o) => o.spelled), ...after.everyday]) {
      if (ix.spellings.has(word) || spellings.has(word)) continue;
      spellings.set(word, stem);
      longestWord = Math.max(longestWord, word.length);
    }
    const index: MatcherIndex = {
      ...ix,
      registry: { ...ix.registry, categories: { ...ix.registry.categories, [slug]: edited } },
      terms: new OverlayMap(ix.terms, termsWith(ix, id, before, after, keywords)),
      spellings: new OverlayMap(ix.spellings, spellings),
      keywords,
      exclusions: new OverlayMap(ix.exclusions, exclusionsWith(ix, slug, before, after)),
      longestWord,
    };
    return new EditableIndex(index, vocabulary, writtenBy, this.#rules, this.#readings);
  }

  /**
   * The vocabulary as indexSteps orders it with category `id` read as `after`: words first written
   * before it, its own, then the rest; undefined when the category no longer writes a word it wrote
   * first (a later one may write it: index anew).
   */
  #vocabularyWith (id: number, after: CategoryReading): { vocabulary: string[]; writtenBy: Map<string, number> } | undefined {
    const writtenBy = new Map(this.#writtenBy);
    const own: string[] = [];
    const seen = new Set<string>();
    for (const word of spelledBy(after)) {
      const by = writtenBy.get(word);
      if (by !== undefined && by < id) continue;
      if (by === id && seen.has(word)) continue;
      seen.add(word);
      writtenBy.set(word, id);
      own.push(word);
    }
    const kept = new Set(own);
    for (const word of this.vocabulary) if (this.#writtenBy.get(word) === id && !kept.has(word)) return undefined;
    const vocabulary: string[] = [];
    for (const word of this.vocabulary) if (this.#writtenBy.get(word)! < id) vocabulary.push(word);
    vocabulary.push(...own);
    for (const word of this.vocabulary) if (writtenBy.get(word)! > id) vocabulary.push(word);
    return { vocabulary, writtenBy };
  }
}

function reading (slug: string, c: Category, rules: MatcherRules, readings: ReadingCache): CategoryReading {
  return runAtOnce(readingOf(slug, c, rules, readings));
}

/** The words a category gives typos to be corrected into, in the order indexSteps reads them. */
function * spelledBy (r: CategoryReading): Generator<string> {
  for (const o of r.owned) if (o.spelled) yield o.word;
  for (const e of r.everyday) yield e.word;
}

/** Whether the two readings differ only in the words the category uses and its not-about entries. */
function sameOutsideWords (a: CategoryReading, b: CategoryReading): boolean {
  const outside = (r: CategoryReading) => {
    const k = r.keywords;
    return JSON.stringify([r.titles, r.everyday, r.soft, [...k.name], [...k.single], k.phrases, [...k.described], [...k.acronyms], [...k.countries]]);
  };
  return outside(a) === outside(b);
}

/** The terms of the words category `id` used or uses, with its part as `after` reads it. */
function termsWith (
  ix: MatcherIndex,
  id: number,
  before: CategoryReading,
  after: CategoryReading,
  keywords: readonly Keywords[]
): Map<string, Term | undefined> {
  const weightAfter = new Map<string, number>();
  for (const { stem, weight } of after.owned) weightAfter.set(stem, Math.max(weightAfter.get(stem) ?? 0, weight));
  const changed = new Map<string, Term | undefined>();
  for (const stem of new Set([...before.owned.map((o) => o.stem), ...weightAfter.keys()])) {
    const whole = ix.terms.get(stem);
    const owners = whole === undefined ? [] : whole.ids.flatMap((other, i) => (other === id ? [] : [{ id: other, field: whole.fields[i]! }]));
    const field = weightAfter.get(stem);
    if (field !== undefined) owners.push({ id, field });
    owners.sort((a, b) => a.id - b.id);
    changed.set(stem, owners.length === 0 ? undefined : termOf(stem, owners, keywords, ix.slugs));
  }
  return changed;
}

/** The not-about entries by first stem where category `slug`'s changed, in the registry's order of categories. */
function exclusionsWith (ix: MatcherIndex, slug: string, before: CategoryReading, after: CategoryReading): Map<string, readonly Exclusion[] | undefined> {
  const changed = new Map<string, readonly Exclusion[] | undefined>();
  if (JSON.stringify(before.exclusions) === JSON.stringify(after.exclusions)) return changed;
  const order = (e: Exclusion) => ix.idOfSlug.get(e.slug)!;
  for (const first of new Set([...before.exclusions, ...after.exclusions].map((e) => e.phrase[0]!))) {
    const others = (ix.exclusions.get(first) ?? []).filter((e) => e.slug !== slug);
    const own = after.exclusions.filter((e) => e.phrase[0] === first).map(({ phrase, entry }) => ({ slug, phrase, entry }));
    const list = [...others, ...own].sort((a, b) => order(a) - order(b));
    changed.set(first, list.length === 0 ? undefined : list);
  }
  return changed;
}
