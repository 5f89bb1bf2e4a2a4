import { BoundedMemo } from '../util/bounded-memo.js';
import { isEverydayWord } from './everyday-words.js';
import type { MatcherIndex, Term } from './index.js';
import type { PreparedQuery } from './query.js';
import type { MatcherRules } from './rules.js';
import type { SpellingIndex } from './spelling.js';

/** How many unknown words' corrections the matcher remembers. */
export const MAX_REMEMBERED_WORDS = 10_000;

/**
 * Per query and registry, whatever the registry holds: keyword phrases compared and not-about
 * entries tried. A real query meets a handful of each; past these, the rest are not looked at,
 * so a registry crafted with thousands of phrases sharing a first word makes no query dearer.
 */
export const MAX_PHRASE_CHECKS = 1024;
export const MAX_SCOPE_CHECKS = 256;

export interface Hit {
  readonly stem: string;
  readonly term: Term;
  /** 1 for an exact word, less for a corrected typo. */
  readonly factor: number;
  /** For a corrected typo, the registry word it was read as. */
  readonly spelling?: string;
}

/**
 * A query read as this registry's words: each word exactly, through a typo correction, or as a
 * slip next to a topic the query names; the keywords and curators' phrases it holds; the
 * not-about entries it meets. What the scorer (scoring.ts) ranks and explain() shows.
 */
export class QueryReader {
  protected readonly ix: MatcherIndex;
  protected readonly rules: MatcherRules;
  readonly #spelling: () => SpellingIndex;
  // Misspelt and unknown words recur across queries; remembering what each resolved to spares the
  // same search. Bounded: emptied when full, so memory stays flat under any traffic.
  readonly #corrections = new BoundedMemo<string, Hit | null>(MAX_REMEMBERED_WORDS);
  // Who asks the query being read (set by the scorer's rank, which runs start to end without
  // yielding). What one client's misspelling resolved to is never another's shortcut.
  protected asker = '';

  constructor (ix: MatcherIndex, rules: MatcherRules, spelling: () => SpellingIndex) {
    this.ix = ix;
    this.rules = rules;
    this.#spelling = spelling;
  }

  remembered (): number {
    return this.#corrections.size;
  }

  #typo (stem: string, edits: number, spelling: string): Hit {
    return { stem, term: this.ix.terms.get(stem)!, factor: 1 - this.rules.typoPenalty * edits, spelling };
  }

  /** A registry word, exactly or (while `mayCorrect`) through a typo correction; `typo` says which was tried. */
  #resolve (word: string, exact: string, mayCorrect: boolean): { hit: Hit | undefined; typo: boolean } {
    const term = this.ix.terms.get(exact);
    if (term !== undefined) return { hit: { stem: exact, term, factor: 1 }, typo: false };
    // A word longer than any registry word by more than two letters is no typo of one: not looked up.
    // Nor is an everyday English word: "remove" is no typo of "remote", "trust" none of "rust".
    if (word.length < this.rules.minTypoLength || word.length > this.ix.longestWord + 2 || isEverydayWord(word)) return { hit: undefined, typo: false };
    // A four-letter word is read only as a swap of two neighbouring letters ("rsut"): two lookups
    // in a map, so it uses none of the query's budget of typo searches.
    if (word.length < this.rules.minAnyTypoLength) return { hit: this.#swapped(word), typo: false };
    if (!mayCorrect) return { hit: undefined, typo: false };
    return { hit: this.#corrections.get(`${this.asker}\u0000${word}`, () => this.#correct(word) ?? null) ?? undefined, typo: true };
  }

  /** The registry word a four-letter word is with two neighbouring letters swapped back, the first letter kept. */
  #swapped (word: string): Hit | undefined {
    for (let i = 1; i < word.length - 1; i++) {
      const candidate = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      const corrected = this.ix.spellings.get(candidate);
      if (corrected !== undefined) return this.#typo(corrected, 1, candidate);
    }
    return undefined;
  }

  /** The registry word `word` is a typo of, if any. */
  #correct (word: string): Hit | undefined {
    // "bread" is not a typo of "dread": only words with the same first letter are candidates.
    for (const { word: candidate, edits } of this.#spelling().candidates(word, this.asker)) {
      const corrected = this.ix.spellings.get(candidate);
      if (corrected === undefined) continue;
      // A registry word with letters added at its end is another word, not a slip: "nodev",
      // "nostro" and "nostra" are not "node" and "nostr".
      if (word.length > candidate.length && word.startsWith(candidate)) continue;
      return this.#typo(corrected, edits, candidate);
    }
    return undefined;
  }

  /**
   * Per category, the stems of `sequence` that are its keywords, alone or as part of a keyword
   * phrase in a row, or an everyday word both the query and the category write in capitals. One
   * pass over the query through the keyword index, so the cost follows the query, not the number
   * of categories.
   */
  keywordStems (sequence: readonly string[], capitals: readonly string[]): Map<number, Set<string>> {
    const found = new Map<number, Set<string>>();
    const add = (id: number, stems: readonly string[]) => {
      const set = found.get(id);
      if (set === undefined) found.set(id, new Set(stems));
      else stems.forEach((s) => set.add(s));
    };
    let checks = 0;
    sequence.forEach((s, i) => {
      if (s === '') return;
      for (const id of this.ix.single.get(s) ?? []) add(id, [s]);
      if (capitals.includes(s)) for (const id of this.ix.acronyms.get(s) ?? []) add(id, [s]);
      for (const { id, phrase } of this.ix.phraseStarts.get(s) ?? []) {
        if (++checks > MAX_PHRASE_CHECKS) return;
        if (i + phrase.length <= sequence.length && phrase.every((p, j) => sequence[i + j] === p)) add(id, phrase);
      }
    });
    return found;
  }

  /**
   * Per category, the not-about entries the query holds (stemmed). An entry of two words holds in a
   * row, in its order ("rust game" is not "a game in rust"); an entry of three or more holds in any
   * order within a run of the query's content words one longer than the entry ("threat assessment
   * for a school event" holds "school threat assessment"), so that words far apart in a long
   * request are not read as one phrase.
   */
  excluded (stems: readonly string[]): Map<string, string[]> {
    const found = new Map<string, string[]>();
    if (!this.rules.scopeEntries) return found;
    const inQuery = new Set(stems);
    const seen = new Set<string>();
    let checks = 0;
    stems.forEach((s) => {
      if (seen.has(s)) return;
      seen.add(s);
      for (const { slug, phrase, entry } of this.ix.exclusions.get(s) ?? []) {
        if (++checks > MAX_SCOPE_CHECKS) return;
        // An entry with a word the query lacks cannot hold: a few set lookups spare the window scan.
        if (!phrase.every((p) => inQuery.has(p))) continue;
        // Each entry is indexed by its first stem, and each stem is looked at once: no entry twice.
        if (holds(stems, phrase)) found.set(slug, [...(found.get(slug) ?? []), entry]);
      }
    });
    return found;
  }

  /**
   * Each word of a query as a registry word (exactly, through a typo correction, or as a slip next
   * to a topic the query names) or none, and the stems in query order ('' for none), for finding
   * keyword phrases. rank() and explain() both read a query through this.
   */
  readWords ({ words, stems }: PreparedQuery, capitals: readonly string[]): { read: (Hit | undefined)[]; sequence: string[] } {
    const read: (Hit | undefined)[] = [];
    let typos = 0;
    for (const [i, word] of words.entries()) {
      const { hit, typo: tried } = this.#resolve(word, stems[i]!, typos < this.rules.maxTypoLookups);
      if (tried) typos++;
      read.push(hit);
    }
    const sequence = read.map((hit) => hit?.stem ?? '');
    // An everyday word a letter from a word of a topic the query names by a keyword or its name
    // is a slip for that word ("mcp sever", "pasword manger"): everyday words are otherwise
    // never corrected ("sever" alone is a word). Within the same budget of lookups.
    if (!this.rules.slipsNextToTopic || typos >= this.rules.maxTypoLookups || !read.some((hit, i) => hit === undefined && isEverydayWord(words[i]!))) {
      return { read, sequence };
    }
    const named = new Set<number>();
    for (const id of this.keywordStems(sequence, capitals).keys()) named.add(id);
    for (const hit of read) for (const id of hit?.term.ids ?? []) if (this.ix.keywords[id]!.name.has(hit!.stem)) named.add(id);
    if (named.size === 0) return { read, sequence };
    for (const [i, word] of words.entries()) {
      if (typos >= this.rules.maxTypoLookups) break;
      if (read[i] !== undefined || word.length < this.rules.minAnyTypoLength || !isEverydayWord(word)) continue;
      typos++;
      for (const { word: candidate, edits } of this.#spelling().candidates(word, this.asker)) {
        // One letter only: a word two letters from a topic's word is another word ("attached" is no "attacker").
        if (edits > 1) break;
        const corrected = this.ix.spellings.get(candidate);
        if (corrected === undefined || (word.length > candidate.length && word.startsWith(candidate))) continue;
        const term = this.ix.terms.get(corrected)!;
        if (!term.ids.some((id) => named.has(id))) continue;
        read[i] = this.#typo(corrected, edits, candidate);
        sequence[i] = corrected;
        break;
      }
    }
    return { read, sequence };
  }

  /** Per stop word (stemmed) of a curator's phrase found whole in the query, the categories whose phrase it is. */
  softPhraseHits (sequence: readonly string[]): Map<string, Set<number>> {
    const found = new Map<string, Set<number>>();
    let checks = 0;
    sequence.forEach((s, i) => {
      for (const { id, phrase, soft } of this.ix.softPhrases.get(s) ?? []) {
        if (++checks > MAX_PHRASE_CHECKS) return;
        if (i + phrase.length > sequence.length || !phrase.every((p, j) => sequence[i + j] === p)) continue;
        for (const w of soft) found.set(w, (found.get(w) ?? new Set()).add(id));
      }
    });
    return found;
  }

  ownCapitals ({ capitals }: PreparedQuery): readonly string[] {
    return capitals.length === 0 ? capitals : capitals.filter((c) => this.ix.acronyms.has(c));
  }
}

/** Whether the query's stems hold a not-about entry's (see excluded()). */
function holds (stems: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length < 3) return stems.some((_, i) => phrase.every((p, j) => stems[i + j] === p));
  const span = Math.min(phrase.length + 1, stems.length);
  for (let start = 0; start + span <= stems.length; start++) {
    const run = stems.slice(start, start + span);
    if (phrase.every((p) => run.includes(p))) return true;
  }
  return false;
}
