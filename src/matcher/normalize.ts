import { STOP_WORDS } from './stop-words.js';

/** Lowercase, accents and punctuation removed, whitespace collapsed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * A light suffix stripper, so "nodes", "hosting" and "hosted" meet "node" and "host".
 * Hand-written because the Porter-style stemmers on npm mangle jargon ("bitcoind", "nostr")
 * and we only need the common inflections; both the registry and queries go through it.
 */
export function stem(word: string): string {
  if (word.length <= 4 || /\d/.test(word)) return word;
  for (const [suffix, replacement] of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      return undouble(word.slice(0, -suffix.length) + replacement);
    }
  }
  return undouble(word);
}

const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['ies', 'y'],
  ['ing', ''],
  ['ers', ''],
  ['er', ''],
  ['ed', ''],
  ['es', 'e'],
  ['ss', 'ss'],
  ['us', 'us'],
  ['is', 'is'],
  ['s', ''],
];

function undouble(word: string): string {
  return /([b-df-hj-np-rtv-z])\1$/.test(word) ? word.slice(0, -1) : word;
}

/** The content words of a text as written: normalised, stop words and single letters dropped. */
export function contentWords(text: string): string[] {
  return normalizeText(text)
    .split(' ')
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

/** The content words of a text, stemmed. */
export function contentTokens(text: string): string[] {
  return contentWords(text).map(stem);
}
