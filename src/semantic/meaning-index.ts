import type { Category, Registry } from '../registry/types.js';
import type { WordVectors } from './word-vectors.js';

/** A category near a query in meaning: the cosine of their vectors (1 the same direction, 0 unrelated). */
export interface Nearby {
  readonly slug: string;
  readonly similarity: number;
}

/** One registry's categories as vectors, built once per registry copy. */
export interface MeaningIndex {
  /** The query's words as one vector, or undefined when the table knows none of them. */
  vectorOf(words: readonly string[]): Float32Array | undefined;
  /** The `count` categories nearest to `query`, nearest first. */
  nearest(query: Float32Array, count: number): Nearby[];
  /** How near one category is to `query` (0 for a slug it does not hold). */
  similarity(query: Float32Array, slug: string): number;
  /** How many vectors it holds (what it costs in memory, 400 bytes each). */
  readonly vectors: number;
}

/**
 * Example questions read per category: each is a vector of its own (a question asked as one of
 * them is near that one, though far from the average), and a registry may hold thousands.
 */
export const MAX_EXAMPLES = 32;
/**
 * Vectors of example questions per registry copy (400 bytes each): a peer's registry of many small
 * categories gets fewer per category, so that no copy holds more than about 16 MB of them.
 */
export const MAX_EXAMPLE_VECTORS = 40_000;
/** Categories compared in full per query, chosen by their whole-text vector (a dot product each): the cost grows slowly with the registry. */
export const PRESELECTED = 32;

/**
 * A category's vectors: its whole text, what it says of itself (name, description, tags,
 * keywords), and each example question. Its nearness to a query is the mean of the whole text's
 * and the nearest single one's: the whole text holds the topic's breadth, one example question
 * the way a question is put ("my dough won't rise" is near "why is my bread dense").
 */
export function * meaningIndexSteps (registry: Registry, vectors: WordVectors, wordsOf: (text: string) => readonly string[]): Generator<void, MeaningIndex> {
  const slugs = Object.keys(registry.categories).sort();
  const { dimensions } = vectors;
  // `wordsOf`: the matcher's own reading of a text (normalised, stop words out), as it reads queries.
  const embed = (text: string) => sentenceVector(wordsOf(text), vectors);
  const whole = new Float32Array(slugs.length * dimensions);
  const parts: Float32Array[][] = [];
  const examplesEach = Math.min(MAX_EXAMPLES, Math.floor(MAX_EXAMPLE_VECTORS / Math.max(1, slugs.length)));
  for (const [id, slug] of slugs.entries()) {
    yield;
    const c = registry.categories[slug] as Category;
    const self = [slug.replace(/-/g, ' '), c.name, c.description, ...c.tags, ...c.keywords].join(' . ');
    const examples = c.queryPatterns.slice(0, examplesEach);
    const all = embed([self, ...examples].join(' . '));
    if (all !== undefined) whole.set(all, id * dimensions);
    parts.push([self, ...examples].map(embed).filter((v) => v !== undefined));
  }
  const idOf = new Map(slugs.map((slug, id) => [slug, id]));
  const score = (query: Float32Array, id: number) => {
    let best = 0;
    for (const part of parts[id]!) best = Math.max(best, dot(query, part, 0, dimensions));
    return round((dot(query, whole, id * dimensions, dimensions) + best) / 2);
  };
  return {
    vectors: slugs.length + parts.reduce((n, p) => n + p.length, 0),
    vectorOf: (words) => sentenceVector(words, vectors),
    nearest (query, count) {
      const preselected = topByWhole(query, whole, slugs.length, dimensions, Math.max(count, PRESELECTED));
      return preselected
        .map((id) => ({ slug: slugs[id]!, similarity: score(query, id) }))
        .sort((a, b) => b.similarity - a.similarity || (a.slug < b.slug ? -1 : 1))
        .slice(0, count);
    },
    similarity (query, slug) {
      const id = idOf.get(slug);
      return id === undefined ? 0 : score(query, id);
    },
  };
}

/** The ids of the `count` categories whose whole-text vector is nearest, in one pass (no sort of every category). */
function topByWhole (query: Float32Array, whole: Float32Array, size: number, dimensions: number, count: number): number[] {
  const best: { id: number; s: number }[] = [];
  for (let id = 0; id < size; id++) {
    const s = dot(query, whole, id * dimensions, dimensions);
    if (best.length === count && s <= best[count - 1]!.s) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.s < s) at--;
    best.splice(at, 0, { id, s });
    if (best.length > count) best.pop();
  }
  return best.map((b) => b.id);
}

/** The words' weighted vectors summed and scaled to length 1; undefined when the table holds none of them. */
export function sentenceVector (words: readonly string[], vectors: WordVectors): Float32Array | undefined {
  const sum = new Float32Array(vectors.dimensions);
  let found = 0;
  for (const word of words) {
    const row = vectors.row(word);
    if (row === undefined) continue;
    vectors.addRow(row, sum);
    found++;
  }
  if (found === 0) return undefined;
  const length = Math.sqrt(dot(sum, sum, 0, sum.length));
  if (length === 0) return undefined;
  for (let d = 0; d < sum.length; d++) sum[d]! /= length;
  return sum;
}

function dot (a: Float32Array, b: Float32Array, offset: number, dimensions: number): number {
  let s = 0;
  for (let d = 0; d < dimensions; d++) s += a[d]! * b[offset + d]!;
  return s;
}

/** Similarities are shown to agents; three decimals also make ties exact. */
function round (n: number): number {
  return Math.round(n * 1000) / 1000;
}
