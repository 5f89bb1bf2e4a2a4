import { isEverydayWord } from './everyday-words.js';
import { stemmer as porter } from 'stemmer';
import { BoundedMemo } from '../util/bounded-memo.js';
import { STOP_WORDS } from './stop-words.js';

/**
 * Lowercase, compatibility forms unfolded (NFKD: "ⅷ" is "viii", "ﬁ" is "fi"), accents and format
 * characters (zero-width spaces and joiners, soft hyphens) removed, punctuation turned into
 * spaces, whitespace collapsed. A format character inside a word must not split it in two.
 */
export function normalizeText (text: string): string {
  return foldUnfolded(unfold(text));
}

/** Compatibility forms unfolded, accents and format characters removed; case kept. */
export function unfold (text: string): string {
  return text.normalize('NFKD').replace(/[\p{M}\p{Cf}]+/gu, '');
}

/** normalizeText of a text already unfolded. */
export function foldUnfolded (unfolded: string): string {
  return unfolded
    .toLowerCase()
    .replace(/['’]/g, '')
    // A letter joined by a hyphen to a word or a number is one word with it: "z-wave" is "zwave",
    // "e-mail" is "email", form "I-9" is "i9" (single letters and digits alone are dropped, which
    // would leave "wave", "mail" and nothing at all).
    .replace(/(?<![\p{L}\p{N}\-\u2010\u2011])(\p{L})[-\u2010\u2011](?=[\p{L}\p{N}])/gu, '$1')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * A word's stem, so "nodes", "hosting" and "hosted" meet "node" and "host": the Porter stemmer
 * (the `stemmer` package), applied to the registry and to queries alike, so a word cut short
 * ("dns" to "dn") still meets itself. Words with digits ("p0420", "sac305") are names, kept as
 * written.
 */
export function stem (word: string): string {
  if (/\d/.test(word)) return word;
  return stems.get(word, porter);
}

/**
 * The stemmer costs about a microsecond a word and a query repeats the words of earlier ones: stems
 * are remembered, up to a bound (emptied when full), so memory stays flat whatever is asked.
 */
const stems = new BoundedMemo<string, string>(50_000);

/** The content words of a text as written: normalised, stop words and single letters dropped. */
export function contentWords (text: string): string[] {
  return contentWordsOf(normalizeText(text));
}

/** contentWords of a text already normalised. */
export function contentWordsOf (normalized: string): string[] {
  return normalized.split(' ').filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

/**
 * The everyday words a text writes in capitals ("STRIDE", "PASTA"), stemmed: there they are the
 * name of a method, not the word ("running stride"). Other words in capitals ("DKIM") mean the
 * same in any case, so they are not kept. Takes the text unfolded (see unfold()).
 */
export function capitalizedEverydayWords (unfolded: string): string[] {
  // Most queries hold no run of three capitals: one test, and nothing else to do.
  if (!/\p{Lu}{3}/u.test(unfolded)) return [];
  const found = new Set<string>();
  for (const token of unfolded.split(/[^\p{L}\p{N}]+/u)) {
    if (token.length < 3 || token !== token.toUpperCase() || token === token.toLowerCase()) continue;
    const word = token.toLowerCase();
    if (isEverydayWord(word)) found.add(stem(word));
  }
  return [...found].sort();
}
