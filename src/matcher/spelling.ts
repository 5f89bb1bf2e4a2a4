import Fuse from 'fuse.js';
import { BoundedMemo } from '../util/bounded-memo.js';
import { allowedEdits, editDistance } from './edit-distance.js';

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

/** How loosely fuse.js proposes spelling candidates (its score, 0 = exact); editDistance decides. */
const TYPO_CANDIDATES = 0.45;
/** How many words' candidates an index remembers. */
const MAX_REMEMBERED = 10_000;

/**
 * fuse.js over a vocabulary, one small index per first letter: typists rarely miss the first
 * letter, and searching one letter's words instead of the whole vocabulary keeps a lookup in
 * microseconds. Built once per registry, or once for all of a federation's peers together, so
 * that a query's unknown words are looked up once however many registries it is asked of.
 */
export function spellingIndex(words: Iterable<string>, limit?: number): SpellingIndex {
  const byInitial = new Map<string, string[]>();
  for (const word of new Set(words)) {
    const list = byInitial.get(word[0]!);
    if (list === undefined) byInitial.set(word[0]!, [word]);
    else list.push(word);
  }
  const indexes = new Map([...byInitial].map(([initial, list]) => [initial, new Fuse(list, { threshold: TYPO_CANDIDATES, minMatchCharLength: 3 })]));
  const memo = new BoundedMemo<string, readonly Candidate[]>(MAX_REMEMBERED);
  const search = (word: string): readonly Candidate[] => {
    const max = allowedEdits(word.length);
    return (indexes.get(word[0]!)?.search(word, limit === undefined ? undefined : { limit }) ?? [])
      .map((r) => ({ word: r.item, edits: editDistance(word, r.item, max) }))
      .filter((c) => c.edits <= max);
  };
  return { candidates: (word) => memo.get(word, search) };
}

/**
 * For a federation's shared index, where the vocabulary is every peer's words together: instead
 * of fuse.js's fuzzy scores over all words with the same first letter, only words of a length a
 * typo can reach are compared, by the same bounded edit distance the matcher decides with
 * (closest first). Same first letter, same accepted typos; a lookup compares a few dozen words,
 * however many peers there are.
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
        const edits = editDistance(word, other, max);
        if (edits <= max) found.push({ word: other, edits });
      }
    }
    return found.sort((a, b) => a.edits - b.edits);
  };
  return { candidates: (word) => memo.get(word, search) };
}
