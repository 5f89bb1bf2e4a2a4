import Fuse from 'fuse.js';
import { BoundedMemo } from '../util/bounded-memo.js';

/** Proposes registry words a misspelt word may have meant; the matcher decides with editDistance. */
export interface SpellingIndex {
  candidates(word: string): readonly string[];
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
export function spellingIndex(words: Iterable<string>, limit = 3): SpellingIndex {
  const known = new Set(words);
  const byInitial = new Map<string, string[]>();
  for (const word of known) {
    const list = byInitial.get(word[0]!);
    if (list === undefined) byInitial.set(word[0]!, [word]);
    else list.push(word);
  }
  const indexes = new Map([...byInitial].map(([initial, list]) => [initial, new Fuse(list, { threshold: TYPO_CANDIDATES, minMatchCharLength: 3 })]));
  const memo = new BoundedMemo<string, readonly string[]>(MAX_REMEMBERED);
  return {
    // A word of the vocabulary is a word, not a typo: in a shared index, a peer's own word is never
    // "corrected" into another registry's.
    candidates: (word) => (known.has(word) ? [] : memo.get(word, (w) => (indexes.get(w[0]!)?.search(w, { limit }) ?? []).map((r) => r.item))),
  };
}
