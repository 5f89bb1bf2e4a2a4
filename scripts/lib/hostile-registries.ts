/**
 * Registries a hostile curator could sign, built to make a server that indexes them work hard:
 * at the peer limits (accepted, and each query's work must stay bounded) or just past them
 * (refused with a reason). Also the queries crafted against them. Used by the tests and by
 * npm run bench:hostile.
 */
import { PEER_INDEX_LIMITS } from '../../src/matcher/matcher.js';
import type { Registry } from '../../src/registry/types.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** A valid category whose example questions hold `words`, packed into questions of ~40 words. */
function category (i: number, words: readonly string[] = [], keywords: readonly string[] = [], notAbout: readonly string[] = []) {
  const patterns: string[] = [];
  for (let j = 0; j < words.length; j += 40) patterns.push(words.slice(j, j + 40).join(' '));
  return {
    name: `Topic ${i}`,
    description: `A crafted topic number ${i}`,
    tags: ['crafted'],
    keywords: [...keywords],
    queryPatterns: patterns.length > 0 ? patterns : [`crafted question ${i}`],
    ...(notAbout.length > 0 ? { notAbout: [...notAbout] } : {}),
    sources: [1, 2, 3].map((rank) => ({ rank, name: `Source ${rank}`, url: `https://example.org/${i}/${rank}`, type: 'documentation', why: 'crafted' })),
  };
}

function registry (pubkey: string, categories: Record<string, unknown>, version = '1.0.0'): Registry {
  return { version, updated: '2026-11-26', curator: { name: 'Crafted', pubkey }, endorsements: [], categories } as unknown as Registry;
}

/** `n` distinct words of `length` letters starting with `first`, each an edit or two from the others. */
export function nearIdentical (first: string, length: number, n: number): string[] {
  const words: string[] = [];
  for (let i = 0; words.length < n; i++) {
    // The same stem of x's, with the index written in letters at its end: one bucket, all close.
    let tail = '';
    for (let k = i; tail.length < 3; k = Math.floor(k / 26)) tail = LETTERS[k % 26]! + tail;
    words.push(`${first}${'x'.repeat(length - 4)}${tail}`);
  }
  return words;
}

/** Spelling buckets filled to `perBucket` near-identical words (the limit, or one past it). */
export function spellingFlood (pubkey: string, perBucket = PEER_INDEX_LIMITS.wordsPerSpellingBucket, version = '1.0.0'): Registry {
  const words: string[] = [];
  // Twenty first letters, five lengths each (one lookup reads five lengths): 50,000 words at the limit.
  for (const first of 'abcdefghijklmnopqrst') for (let length = 10; length <= 14; length++) words.push(...nearIdentical(first, length, perBucket));
  const limited = words.slice(0, Math.max(PEER_INDEX_LIMITS.words - 200, perBucket + 1));
  const categories: Record<string, unknown> = {};
  const perCategory = 400 * 40;
  for (let i = 0; i * perCategory < limited.length; i++) categories[`flood-${i}`] = category(i, limited.slice(i * perCategory, (i + 1) * perCategory));
  return registry(pubkey, categories, version);
}

/** Keyword phrases and not-about entries, `perWord` of each sharing every first word. */
export function phraseFlood (pubkey: string, perWord = PEER_INDEX_LIMITS.phrasesPerWord, firstWords = 32, version = '1.0.0'): Registry {
  const categories: Record<string, unknown> = {};
  // Spread over categories so that no list passes its per-category limit (500 keywords, 200 not-about).
  const perCategory = 100;
  const all: { keyword: string; scope: string }[] = [];
  for (let w = 0; w < firstWords; w++) {
    for (let j = 0; j < perWord; j++) all.push({ keyword: `lead${LETTERS[w % 26]}${LETTERS[Math.floor(w / 26)]} tail${j} end${j}`, scope: `lead${LETTERS[w % 26]}${LETTERS[Math.floor(w / 26)]} other${j} more${j}` });
  }
  for (let i = 0; i * perCategory < all.length; i++) {
    const slice = all.slice(i * perCategory, (i + 1) * perCategory);
    categories[`phrases-${i}`] = category(i, [], slice.map((p) => p.keyword), slice.map((p) => p.scope));
  }
  return registry(pubkey, categories, version);
}

/** Queries crafted against those registries: typos into full buckets, and every flooded first word at once. */
export function craftedQueries (count: number): string[] {
  const queries: string[] = [];
  for (let i = 0; queries.length < count; i++) {
    const letters = 'abcdefghijklmnopqrst';
    // Three long words that are no registry word but an edit from hundreds (three typo lookups).
    const typos = [0, 1, 2].map((k) => `${letters[(i + k) % 20]}${'x'.repeat(8 + ((i + k) % 4))}q${LETTERS[i % 26]}${LETTERS[(i * 7 + k) % 26]}`);
    const leads = Array.from({ length: 29 }, (_, w) => `lead${LETTERS[(w + i) % 26]}${LETTERS[Math.floor(((w + i) % 32) / 26)]}`);
    queries.push([...typos, ...leads].join(' '));
  }
  return queries;
}

/** A made-up word of `length` letters from a seeded generator: ordinary, not crafted to be near others. */
function madeUp (next: () => number, length: number): string {
  let word = '';
  while (word.length < length) word += LETTERS[Math.floor(next() * 26)];
  return word;
}

/**
 * The benign control for the flooded registries: as many distinct words, keyword phrases and
 * not-about entries, in registries of the same shape, but ordinary (words spread over every first
 * letter and length, phrases with distinct first words). What a server holds for it differs from
 * the flooded one only by the crafting.
 */
export function ordinaryOfSameSize (pubkey: string, like: 'spelling' | 'phrases', seed = 1, wordCount = PEER_INDEX_LIMITS.words - 200): Registry {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
  if (like === 'spelling') {
    const words = new Set<string>();
    while (words.size < wordCount) words.add(madeUp(next, 6 + Math.floor(next() * 9)));
    const list = [...words];
    const categories: Record<string, unknown> = {};
    const perCategory = 400 * 40;
    for (let i = 0; i * perCategory < list.length; i++) categories[`ordinary-${i}`] = category(i, list.slice(i * perCategory, (i + 1) * perCategory));
    return registry(pubkey, categories);
  }
  const flood = phraseFlood(pubkey);
  const categories: Record<string, unknown> = {};
  for (const [slug, c] of Object.entries(flood.categories)) {
    categories[slug] = { ...c, keywords: c.keywords.map(() => `${madeUp(next, 7)} ${madeUp(next, 6)} ${madeUp(next, 5)}`), notAbout: (c.notAbout ?? []).map(() => `${madeUp(next, 7)} ${madeUp(next, 6)} ${madeUp(next, 5)}`) };
  }
  return registry(pubkey, categories);
}
