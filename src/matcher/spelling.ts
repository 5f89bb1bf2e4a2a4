import { BoundedMemo } from '../util/bounded-memo.js';
import { allowedEdits, editDistance, mayBeWithin } from './edit-distance.js';

/** A word a misspelt word may have meant, and how many edits apart they are. */
export interface Candidate {
  readonly word: string;
  readonly edits: number;
}

/**
 * Proposes registry words a misspelt word may have meant, best first, each within the edits
 * allowed for its length (editDistance decides; fuse.js only proposes). Computed once per word,
 * however many registries then read it.
 */
export interface SpellingIndex {
  candidates(word: string): readonly Candidate[];
}

/** How many words' candidates an index remembers. */
const MAX_REMEMBERED = 10_000;

/**
 * The words of a vocabulary a misspelt word may have meant: those with the same first letter
 * (typists rarely miss it: "bread" is no typo of "dread") and a length a typo can reach, within
 * the edits allowed for its length by the same bounded edit distance that decides, closest first.
 * A lookup compares a few dozen words whatever the size of the vocabulary, so one index serves a
 * registry or a whole federation (each registry then keeps only its own words). Written by hand
 * over editDistance: fuse.js's fuzzy scores cost 0.1 to 0.4 ms a word here, twenty times a
 * whole ordinary query, and proposed words the edit distance then refused.
 */
export function editDistanceIndex(words: Iterable<string>): SpellingIndex {
  const buckets = new Map<string, string[]>();
  for (const word of new Set(words)) {
    const key = `${word[0]}${word.length}`;
    const list = buckets.get(key);
    if (list === undefined) buckets.set(key, [word]);
    else list.push(word);
  }
  const memo = new BoundedMemo<string, readonly Candidate[]>(MAX_REMEMBERED);
  const search = (word: string): readonly Candidate[] => {
    const max = allowedEdits(word.length);
    const found: Candidate[] = [];
    for (let length = word.length - max; length <= word.length + max; length++) {
      for (const other of buckets.get(`${word[0]}${length}`) ?? []) {
        if (!mayBeWithin(word, other, max)) continue;
        const edits = editDistance(word, other, max);
        if (edits <= max) found.push({ word: other, edits });
      }
    }
    return found.sort((a, b) => a.edits - b.edits);
  };
  return { candidates: (word) => memo.get(word, search) };
}
