import { BoundedMemo } from '../util/bounded-memo.js';
import { allowedEdits, editDistance, mayBeWithin } from './edit-distance.js';

/** A word a misspelt word may have meant, and how many edits apart they are. */
export interface Candidate {
  readonly word: string;
  readonly edits: number;
}

/**
 * Proposes registry words a misspelt word may have meant, best first, each within the edits
 * allowed for its length: a bounded search among the words of the same first letter and about the
 * same length, editDistance deciding (see editDistanceIndexSteps). Computed once per word.
 */
export interface SpellingIndex {
  /** `asker`: who asks, if anyone (see Matcher.match): candidates are remembered per asker. */
  candidates(word: string, asker?: string): readonly Candidate[];
}

/** How many words' candidates an index remembers. */
const MAX_REMEMBERED = 10_000;
/**
 * The closest candidates kept per word: the matcher takes the first that is a word of its
 * registry, so a few suffice; a registry crafted to put thousands of words within an edit of
 * one another cannot make a remembered word hold thousands of candidates.
 */
export const MAX_CANDIDATES = 8;
/**
 * Words compared per lookup, at most, whatever the registry holds: a real registry's largest
 * bucket (first letter and length) holds a few dozen words, and a lookup reads at most five.
 */
export const MAX_COMPARISONS = 512;
/**
 * Full edit distances computed per lookup, at most: the cheap letter test (mayBeWithin) leaves a
 * handful in a real registry, but every one of a bucket of near-identical crafted words passes it.
 */
export const MAX_DISTANCES = 48;
/**
 * Words longer than this are neither corrected nor corrections: no real word that long is
 * misspelt into another ("internationalisation" has 20 letters), and the edit distance of two
 * long words costs the product of their lengths.
 */
export const MAX_SPELLING_LENGTH = 24;

/** Thrown while building when `maxBucket` is given and a bucket would exceed it. */
export class SpellingBucketFull extends Error {}

export interface SpellingOptions {
  /** Refuse (SpellingBucketFull) a vocabulary with more words of one first letter and length. */
  readonly maxBucket?: number;
}

/**
 * The words of a vocabulary a misspelt word may have meant: those with the same first letter
 * (typists rarely miss it: "bread" is no typo of "dread") and a length a typo can reach, within
 * the edits allowed for its length by the same bounded edit distance that decides, closest first.
 * A lookup compares a few dozen words whatever the size of the vocabulary, and never more than
 * MAX_COMPARISONS. Written by hand over editDistance: fuse.js's fuzzy scores cost 0.1 to 0.4 ms a
 * word here, twenty times a whole ordinary query, and proposed words the edit distance then refused.
 * Written as steps (a yield per word), so that a peer's index is built within slices of time.
 */
export function * editDistanceIndexSteps (words: Iterable<string>, options: SpellingOptions = {}): Generator<void, SpellingIndex> {
  // One vocabulary's index is the shared index over that vocabulary alone: the bounded search is
  // written once (sharedSpellingSteps), and answers as an index of its own would.
  const shared = yield * sharedSpellingSteps([options.maxBucket === undefined ? words : withinBuckets(words, options.maxBucket)]);
  return shared.forVocabulary(0);
}

/** The words, refused (SpellingBucketFull) once one first letter and length holds more than `maxBucket` distinct ones. */
function * withinBuckets (words: Iterable<string>, maxBucket: number): Generator<string> {
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  for (const word of words) {
    if (word.length <= MAX_SPELLING_LENGTH && !seen.has(word)) {
      seen.add(word);
      const key = `${word[0]}${word.length}`;
      const n = (counts.get(key) ?? 0) + 1;
      if (n > maxBucket) throw new SpellingBucketFull(`more than ${maxBucket} distinct words of the same first letter and length`);
      counts.set(key, n);
    }
    yield word;
  }
}

/** One index over the vocabularies of many registries (a federation's peers), read by each as its own. */
export interface SharedSpelling {
  /** What registry `id` (its place in the list built from) would get from an index of its own words. */
  forVocabulary(id: number): SpellingIndex;
}

interface SharedBucket {
  readonly words: string[];
  /** Per word, the vocabularies holding it and its place in each (the order its own index keeps). */
  readonly owners: { readonly id: number; readonly pos: number }[][];
}

/**
 * A spelling index shared by many registries, built in steps (a yield per word), off the request
 * path: a word that many peers use is compared once per lookup, not once per peer. It answers each
 * registry exactly as that registry's own index would (the same candidates, in the same order), and
 * the costly edit distances are budgeted per registry (MAX_DISTANCES each), so that one registry's
 * words, however crafted, never use up another's budget: it can neither stand in for nor crowd out
 * another registry's words. What a lookup scans is bounded by the per-copy bucket limit times the
 * number of registries.
 */
export function * sharedSpellingSteps (vocabularies: readonly Iterable<string>[]): Generator<void, SharedSpelling> {
  const buckets = yield * bucketsSteps(vocabularies);
  const memo = new BoundedMemo<string, ReadonlyMap<number, readonly Candidate[]>>(MAX_REMEMBERED);
  const none: readonly Candidate[] = [];
  const search = (word: string) => closestFirst(searchBuckets(buckets, vocabularies.length, word));
  return { forVocabulary: (id) => ({ candidates: (word, asker = '') => memo.get(`${asker}\u0000${word}`, () => search(word)).get(id) ?? none }) };
}

/** The vocabularies' words by first letter and length, each once, with the vocabularies holding it and its place in each. */
function * bucketsSteps (vocabularies: readonly Iterable<string>[]): Generator<void, Map<string, SharedBucket>> {
  const buckets = new Map<string, SharedBucket>();
  const where = new Map<string, { bucket: SharedBucket; i: number }>();
  for (const [id, vocabulary] of vocabularies.entries()) {
    let pos = 0;
    const seen = new Set<string>();
    for (const word of vocabulary) {
      yield;
      if (word.length > MAX_SPELLING_LENGTH || seen.has(word)) continue;
      seen.add(word);
      const known = where.get(word);
      if (known !== undefined) {
        known.bucket.owners[known.i]!.push({ id, pos: pos++ });
        continue;
      }
      const key = `${word[0]}${word.length}`;
      let bucket = buckets.get(key);
      if (bucket === undefined) buckets.set(key, (bucket = { words: [], owners: [] }));
      where.set(word, { bucket, i: bucket.words.length });
      bucket.words.push(word);
      bucket.owners.push([{ id, pos: pos++ }]);
    }
  }
  return buckets;
}

/** Per vocabulary, the words within the edits allowed of `word` that its own index would have found, with their place in it. */
function searchBuckets (buckets: ReadonlyMap<string, SharedBucket>, registries: number, word: string): Map<number, (Candidate & { pos: number })[]> {
  const found = new Map<number, (Candidate & { pos: number })[]>();
  if (word.length > MAX_SPELLING_LENGTH) return found;
  const max = allowedEdits(word.length);
  // Both budgets of a registry's own index, kept per registry: words compared, distances measured.
  // No registry can have compared more words than the lookup has scanned, so the per-registry
  // counts of words compared are kept only once it has scanned MAX_COMPARISONS (the first ones
  // then counted at once): an ordinary lookup scans far fewer and pays nothing for them.
  const compared = new Int32Array(registries);
  const measured = new Int32Array(registries);
  const early: (readonly { readonly id: number }[])[] = [];
  let scanned = 0;
  const scanning = (id: number) => scanned <= MAX_COMPARISONS || compared[id]! <= MAX_COMPARISONS;
  for (let length = word.length - max; length <= word.length + max; length++) {
    const bucket = buckets.get(`${word[0]}${length}`);
    if (bucket === undefined) continue;
    for (let i = 0; i < bucket.words.length; i++) {
      const owners = bucket.owners[i]!;
      if (++scanned <= MAX_COMPARISONS) early.push(owners);
      else {
        if (scanned === MAX_COMPARISONS + 1) for (const list of early) for (const o of list) compared[o.id]!++;
        // Compared for the registries whose scan is not spent (as their own index would stop).
        let any = false;
        for (const o of owners) if (++compared[o.id]! <= MAX_COMPARISONS) any = true;
        if (!any) continue;
      }
      const other = bucket.words[i]!;
      if (!mayBeWithin(word, other, max)) continue;
      // Measured only for registries whose budgets are not spent, and counted against each of them.
      let active = 0;
      for (const o of owners) if (scanning(o.id) && measured[o.id]! < MAX_DISTANCES) active++;
      if (active === 0) continue;
      const edits = editDistance(word, other, max);
      for (const o of owners) {
        if (!scanning(o.id) || measured[o.id]! >= MAX_DISTANCES) continue;
        measured[o.id]!++;
        if (edits > max) continue;
        const list = found.get(o.id);
        if (list === undefined) found.set(o.id, [{ word: other, edits, pos: o.pos }]);
        else list.push({ word: other, edits, pos: o.pos });
      }
    }
  }
  return found;
}

/** Per registry, its candidates ordered as its own index orders them: by edits, then length, then its own word order; the first MAX_CANDIDATES. */
function closestFirst (found: ReadonlyMap<number, (Candidate & { pos: number })[]>): ReadonlyMap<number, readonly Candidate[]> {
  const result = new Map<number, readonly Candidate[]>();
  for (const [id, list] of found) {
    result.set(
      id,
      list
        .sort((a, b) => a.edits - b.edits || a.word.length - b.word.length || a.pos - b.pos)
        .slice(0, MAX_CANDIDATES)
        .map(({ word, edits }) => ({ word, edits }))
    );
  }
  return result;
}
