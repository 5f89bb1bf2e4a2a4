import { BoundedMemo } from '../util/bounded-memo.js';
import { allowedEdits, editDistance, mayBeWithin } from './edit-distance.js';

/** A word a misspelt word may have meant, and how many edits apart they are. */
export interface Candidate {
  readonly word: string;
  readonly edits: number;
}

/**
 * Proposes registry words a misspelt word may have meant, best first, each within the edits
 * allowed for its length (editDistance decides; fuse.js only proposes). Computed once per word.
 */
export interface SpellingIndex {
  candidates(word: string): readonly Candidate[];
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
export const MAX_COMPARISONS = 2048;
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
 */
export function editDistanceIndex(words: Iterable<string>, options: SpellingOptions = {}): SpellingIndex {
  const steps = editDistanceIndexSteps(words, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** editDistanceIndex as steps (a yield per word), for building within slices of time. */
export function* editDistanceIndexSteps(words: Iterable<string>, options: SpellingOptions = {}): Generator<void, SpellingIndex> {
  const buckets = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const word of words) {
    yield;
    if (word.length > MAX_SPELLING_LENGTH || seen.has(word)) continue;
    seen.add(word);
    const key = `${word[0]}${word.length}`;
    const list = buckets.get(key);
    if (list === undefined) buckets.set(key, [word]);
    else {
      if (options.maxBucket !== undefined && list.length >= options.maxBucket) {
        throw new SpellingBucketFull(`more than ${options.maxBucket} distinct words of the same first letter and length`);
      }
      list.push(word);
    }
  }
  const memo = new BoundedMemo<string, readonly Candidate[]>(MAX_REMEMBERED);
  const search = (word: string): readonly Candidate[] => {
    if (word.length > MAX_SPELLING_LENGTH) return [];
    const max = allowedEdits(word.length);
    const found: Candidate[] = [];
    let compared = 0;
    for (let length = word.length - max; length <= word.length + max; length++) {
      for (const other of buckets.get(`${word[0]}${length}`) ?? []) {
        if (++compared > MAX_COMPARISONS) return closest(found);
        if (!mayBeWithin(word, other, max)) continue;
        const edits = editDistance(word, other, max);
        if (edits <= max) found.push({ word: other, edits });
      }
    }
    return closest(found);
  };
  return { candidates: (word) => memo.get(word, search) };
}

function closest(found: Candidate[]): readonly Candidate[] {
  // Stable: among equals, the vocabulary's order, as before the cap.
  return found.sort((a, b) => a.edits - b.edits).slice(0, MAX_CANDIDATES);
}
