import type { Category, Registry } from '../registry/types.js';
import { capitalizedEverydayWords, contentWords, normalizeText, stem, unfold } from './normalize.js';
import { PROSE_WEIGHT, type MatcherRules } from './rules.js';
import { FUNCTION_WORDS, SOFT_STOP_WORDS } from './stop-words.js';
import { isEverydayWord } from './everyday-words.js';
import { asksNearMe, NEAR_ME, showPhrasesOf } from './intent-words.js';
import { countriesIn } from './places.js';

/**
 * What a registry may make the matcher hold, when given (for peers' copies): a copy beyond them is
 * refused with IndexTooLarge rather than indexed. Far above a real registry: the shipped one has
 * about 1,500 distinct words, at most 12 in one spelling bucket and 4 phrases sharing a first word.
 */
export interface IndexLimits {
  /** Distinct words (stems and spellings) across the registry. */
  readonly words: number;
  /** Words of the same first letter and length (what one typo lookup reads). */
  readonly wordsPerSpellingBucket: number;
  /** Keyword phrases, or not-about entries, starting with the same word. */
  readonly phrasesPerWord: number;
}

/** How much of a category's name and tags, and of its description, is read for the countries it is bound to. */
export const SCOPE_TEXT_LENGTH = 1000;

export const PEER_INDEX_LIMITS: IndexLimits = { words: 50_000, wordsPerSpellingBucket: 500, phrasesPerWord: 256 };

export class IndexTooLarge extends Error {}

export interface Term {
  /** How rare the word is across categories (inverse category frequency). */
  readonly weight: number;
  readonly slugs: readonly string[];
  /** The same categories by their place in the sorted slugs: what the scoring loop counts by. */
  readonly ids: readonly number[];
  /** Per category (same order as ids), the weight of the field the curator wrote the word in (the highest if several). */
  readonly fields: readonly number[];
  /**
   * Per category (same order as ids), what the word is to it (TERM_PHRASE_ONLY, TERM_NAMES,
   * TERM_DESCRIBES): read once per word and category a query shares, set lookups the ranking
   * would otherwise do for every such pair (thousands a query among thousands of categories).
   */
  readonly flags: Uint8Array;
}

/** The word counts for the category only inside a keyword phrase of it (Keywords.phraseOnly). */
export const TERM_PHRASE_ONLY = 1;
/** The word is in the category's name or slug (Keywords.name). */
export const TERM_NAMES = 2;
/** The word is in the category's name, description or tags (Keywords.described). */
export const TERM_DESCRIBES = 4;

/** How much a word says, by how few of the registry's categories use it (an inverse document frequency). */
export function rarity (categories: number, using: number): number {
  return Math.log(1 + categories / using);
}

/** A word's entry, from the categories that use it (by number, ascending) and the field weight each wrote it in. */
export function termOf (
  stem: string,
  owners: readonly { readonly id: number; readonly field: number }[],
  keywords: readonly Keywords[],
  slugs: readonly string[]
): Term {
  const flags = new Uint8Array(owners.length);
  owners.forEach(({ id }, i) => {
    const k = keywords[id]!;
    flags[i] = (k.phraseOnly.has(stem) ? TERM_PHRASE_ONLY : 0) | (k.name.has(stem) ? TERM_NAMES : 0) | (k.described.has(stem) ? TERM_DESCRIBES : 0);
  });
  return {
    weight: rarity(slugs.length, owners.length),
    slugs: owners.map((o) => slugs[o.id]!),
    ids: owners.map((o) => o.id),
    fields: owners.map((o) => o.field),
    flags,
  };
}

export interface Keywords {
  /** Stems of the category's name and slug. */
  readonly name: ReadonlySet<string>;
  /** Stems of one-word keywords. */
  readonly single: ReadonlySet<string>;
  /** Stem sequences of keywords of several words; they count when they appear in a row. */
  readonly phrases: readonly (readonly string[])[];
  /** Stems found only inside those keywords: evidence only when their keyword is in the query. */
  readonly phraseOnly: ReadonlySet<string>;
  /** Stems of the category's name, description and tags: the words it describes itself with. */
  readonly described: ReadonlySet<string>;
  /** Every stem the category's text uses, in any field (what "the category explains this word" means). */
  readonly all: ReadonlySet<string>;
  /** Everyday words its name, description, tags or keywords write in capitals ("STRIDE"), stemmed. */
  readonly acronyms: ReadonlySet<string>;
  /**
   * The countries the category is bound to: named in its name, slug or tags, or in its description
   * after "in" ("private renting in England and Wales"); empty for a topic of no one country.
   */
  readonly countries: ReadonlySet<string>;
}

export interface SoftPhrase {
  readonly id: number;
  readonly phrase: readonly string[];
  readonly soft: readonly string[];
  /** From the category's name or slug, not a keyword. */
  readonly named: boolean;
}

/** A curator's phrase as the matcher reads it inside a query: function words out, stop words kept. */
export function softPhraseOf (text: string): { phrase: string[]; soft: string[] } | undefined {
  const tokens = normalizeText(text).split(' ').filter((w) => w.length > 1 && !FUNCTION_WORDS.has(w));
  if (tokens.length < 2 || !tokens.some((w) => SOFT_STOP_WORDS.has(w))) return undefined;
  return { phrase: tokens.map(stem), soft: [...new Set(tokens.filter((w) => SOFT_STOP_WORDS.has(w)).map(stem))] };
}

export interface Exclusion {
  readonly slug: string;
  readonly phrase: readonly string[];
  readonly entry: string;
}

/** Everything the matcher reads per query, built once per registry. */
export interface MatcherIndex {
  readonly registry: Registry;
  /** Category slugs, sorted: a category's number is its place here. */
  readonly slugs: readonly string[];
  readonly idOfSlug: ReadonlyMap<string, number>;
  /** Every stem the registry uses, with the categories that use it. */
  readonly terms: ReadonlyMap<string, Term>;
  /** Every spelling (a plain word as written) with its stem: what typos are corrected into. */
  readonly spellings: ReadonlyMap<string, string>;
  readonly keywords: readonly Keywords[];
  readonly single: ReadonlyMap<string, readonly number[]>;
  readonly acronyms: ReadonlyMap<string, readonly number[]>;
  readonly phraseStarts: ReadonlyMap<string, readonly { readonly id: number; readonly phrase: readonly string[] }[]>;
  /** Not-about entries as stem sequences, by their first stem. */
  readonly exclusions: ReadonlyMap<string, readonly Exclusion[]>;
  /**
   * Names and keywords that hold a stop word other than a function word ("first aid", "day
   * hiking", "Next.js"), as stem sequences without function words, by their first stem; `soft`:
   * the stems of those stop words, which count for the category only inside the whole phrase.
   */
  readonly softPhrases: ReadonlyMap<string, readonly SoftPhrase[]>;
  /** Per category, the stop words of its name's phrase, as scoring keys them ("~day"): they name it. */
  readonly namedSoft: readonly ReadonlySet<string>[];
  /** Each category by its slug and by its name, normalised ("rust learning"): a query that is one of them asks for it. */
  readonly byTitle: ReadonlyMap<string, number>;
  readonly longestWord: number;
  /** The weight of a word only one category uses. */
  readonly rarest: number;
}

/**
 * What one category contributes to the index, whatever the rest of the registry holds: its words
 * with the field weight each was written in, the spellings it adds, its keyword sets, phrases and
 * not-about entries. Pure in the category, its slug and the rules, so a caller that rebuilds a
 * registry many times with one category edited (triage judging suggestions) may keep readings
 * (see ReadingCache) and have only the edited category read again.
 */
export interface CategoryReading {
  /** Its slug and name, normalised: how a query names it. */
  readonly titles: readonly string[];
  /** Per word written, in order: its stem, its field weight, and whether typos are corrected into it. */
  readonly owned: readonly { readonly word: string; readonly stem: string; readonly weight: number; readonly spelled: boolean }[];
  /** A keyword's everyday words, in order: corrected into when no other field spelled them first. */
  readonly everyday: readonly { readonly word: string; readonly stem: string }[];
  readonly keywords: Keywords;
  readonly soft: readonly { readonly phrase: readonly string[]; readonly soft: readonly string[]; readonly named: boolean }[];
  readonly exclusions: readonly { readonly phrase: readonly string[]; readonly entry: string }[];
}

/**
 * Categories' readings kept by category object, for as long as the caller keeps the cache: never
 * kept by default, since a reading holds every word of its category again (a peer's copy near the
 * limits would hold tens of megabytes more).
 */
export type ReadingCache = WeakMap<Category, { readonly slug: string; readonly rules: MatcherRules; readonly reading: CategoryReading }>;

/** The category's reading: from `cache` when it was read with the same slug and rules, else read (and kept there). */
export function * readingOf (slug: string, c: Category, rules: MatcherRules, cache: ReadingCache | undefined): Generator<void, CategoryReading> {
  const kept = cache?.get(c);
  if (kept !== undefined && kept.slug === slug && kept.rules === rules) return kept.reading;
  const reading = yield * readCategorySteps(slug, c, rules);
  cache?.set(c, { slug, rules, reading });
  return reading;
}

/** Reads one category, one step per text so that a category with hundreds of texts is read in pieces. */
function * readCategorySteps (slug: string, c: Category, rules: MatcherRules): Generator<void, CategoryReading> {
  const titles = [slug.replace(/-/g, ' '), c.name].map(normalizeText);
  const described = [slug.replace(/-/g, ' '), c.name, c.description, ...c.tags].join(' ');
  const { owned, all } = yield * fieldWordsSteps(described, c, rules);
  const { everyday, single, phrases, phraseOnly } = yield * keywordWordsSteps(c, rules, owned, all);
  const name = new Set(contentWords(`${slug.replace(/-/g, ' ')} ${c.name}`).map(stem));
  const acronyms = new Set(capitalizedEverydayWords(unfold([described, ...c.keywords].join(' '))));
  const keywords: Keywords = {
    name,
    single,
    phrases,
    phraseOnly,
    described: new Set(contentWords(described).map(stem)),
    all,
    acronyms,
    countries: countriesOf(slug, c),
  };
  const soft = yield * softPhrasesSteps(slug, c);
  const exclusions: { phrase: string[]; entry: string }[] = [];
  for (const entry of c.notAbout ?? []) {
    yield;
    const phrase = contentWords(entry).map(stem);
    if (phrase.length > 0) exclusions.push({ phrase, entry });
  }
  return { titles, owned, everyday, keywords, soft, exclusions };
}

type OwnedWord = CategoryReading['owned'][number];

/** The words of the category's text fields, each with its field's weight, and every stem it uses (with what it explains: "near me", shows). */
function * fieldWordsSteps (described: string, c: Category, rules: MatcherRules): Generator<void, { owned: OwnedWord[]; all: Set<string> }> {
  const owned: OwnedWord[] = [];
  const sources = c.sources.map((s) => `${s.name} ${s.why}`);
  const all = new Set<string>();
  // Typos are corrected into these plain words only, never into keywords: jargon is typed by
  // those who know it, and a near spelling of a keyword is more often another name ("postgres"
  // is no "postgrey", "substack" no "shostack").
  for (const [texts, weight] of [
    [[described], PROSE_WEIGHT],
    [c.queryPatterns, PROSE_WEIGHT],
    [sources, rules.sourceWeight],
  ] as const) {
    // A field weighted 0 is not read at all (what the ablation does to a field).
    if (weight === 0) continue;
    for (const text of texts) {
      yield;
      for (const word of contentWords(text)) {
        const s = stem(word);
        // Source names and reasons widen what a category knows; they are not corrected into.
        owned.push({ word, stem: s, weight, spelled: texts !== sources });
        all.add(s);
      }
    }
  }
  // A category that speaks of what is near the asker ("dark skies near me") explains a "near me"
  // question; one about shows or bands ("tv show", "tour dates") explains those phrases.
  for (const text of [described, ...c.queryPatterns, ...c.keywords].map(normalizeText)) {
    if (asksNearMe(text)) all.add(NEAR_ME);
    for (const phrase of showPhrasesOf(text)) all.add(phrase);
  }
  return { owned, all };
}

/** The category's keywords read: one-word keywords and phrases (added to `owned` and `all`), and the everyday words typos may be corrected into. */
function * keywordWordsSteps (c: Category, rules: MatcherRules, owned: OwnedWord[], all: Set<string>) {
  const keywordWords: string[][] = [];
  const everyday: { word: string; stem: string }[] = [];
  for (const keyword of c.keywords) {
    yield;
    const words = contentWords(keyword);
    keywordWords.push(words.map(stem));
    // A near spelling of an everyday word is a typo of it ("batery"); of a coined name it is more
    // often another name ("postgrey" is no "postgres"): a keyword's everyday words are corrected into.
    if (rules.correctIntoKeywords) for (const w of words) if (isEverydayWord(w)) everyday.push({ word: w, stem: stem(w) });
  }
  const single = new Set<string>();
  const phrases: string[][] = [];
  for (const seq of keywordWords) {
    if (seq.length === 1) {
      single.add(seq[0]!);
      owned.push({ word: '', stem: seq[0]!, weight: PROSE_WEIGHT, spelled: false });
      all.add(seq[0]!);
    } else if (seq.length > 1) phrases.push(seq);
  }
  // A word the category uses only inside a keyword of several words ("machine" of "state
  // machine") is no evidence alone: it counts when the whole keyword is in the query, in a row.
  const phraseOnly = new Set<string>();
  for (const seq of phrases) for (const s of seq) if (!all.has(s)) phraseOnly.add(s);
  for (const s of phraseOnly) {
    owned.push({ word: '', stem: s, weight: PROSE_WEIGHT, spelled: false });
    all.add(s);
  }
  return { everyday, single, phrases, phraseOnly };
}

/**
 * The countries the category is bound to. A scope is stated early ("Private renting in England
 * and Wales: ..."): only the first SCOPE_TEXT_LENGTH characters are read, so that a peer's
 * megabyte-long description costs no more.
 */
function countriesOf (slug: string, c: Category): Set<string> {
  const scopeTitles = [slug.replace(/-/g, ' '), c.name, ...c.tags].join(' . ').slice(0, SCOPE_TEXT_LENGTH);
  const scope = c.description.slice(0, SCOPE_TEXT_LENGTH);
  return new Set([...countriesIn(normalizeText(scopeTitles), unfold(scopeTitles), 'named'), ...countriesIn(normalizeText(scope), unfold(scope), 'scope')]);
}

/** The category's names and keywords that hold a stop word, each once (see MatcherIndex.softPhrases). */
function * softPhrasesSteps (slug: string, c: Category): Generator<void, CategoryReading['soft'][number][]> {
  const soft: { phrase: string[]; soft: string[]; named: boolean }[] = [];
  const seen = new Set<string>();
  for (const [text, named] of [[slug.replace(/-/g, ' '), true], [c.name, true], ...c.keywords.map((k): [string, boolean] => [k, false])] as const) {
    yield;
    const phrase = softPhraseOf(text);
    if (phrase === undefined || seen.has(phrase.phrase.join(' '))) continue;
    seen.add(phrase.phrase.join(' '));
    soft.push({ ...phrase, named });
  }
  return soft;
}

/** Builds the index, one step per text so that a large registry is indexed in slices; refuses one beyond `limits`. */
export function * indexSteps (
  registry: Registry,
  rules: MatcherRules,
  limits: IndexLimits | undefined,
  cache?: ReadingCache
): Generator<void, MatcherIndex> {
  const slugs = Object.keys(registry.categories).sort();
  const idOfSlug = new Map(slugs.map((slug, id) => [slug, id]));
  const words = yield * wordsSteps(registry, slugs, rules, cache);
  const terms = new Map<string, Term>();
  for (const [s, perCategory] of words.owners) {
    yield;
    terms.set(s, termOf(s, [...perCategory].map(([id, field]) => ({ id, field })), words.keywords, slugs));
  }
  if (limits !== undefined && Math.max(terms.size, words.spellings.size) > limits.words) throw new IndexTooLarge(`more than ${limits.words} distinct words`);
  const phrases = yield * phrasesSteps(slugs, words.keywords, words.read);
  if (limits !== undefined) {
    for (const [what, index] of [['keyword phrases', phrases.phraseStarts], ['not-about entries', phrases.exclusions], ['phrases with stop words', phrases.softPhrases]] as const) {
      for (const list of index.values()) if (list.length > limits.phrasesPerWord) throw new IndexTooLarge(`more than ${limits.phrasesPerWord} ${what} starting with the same word`);
    }
  }
  let longestWord = 0;
  for (const w of words.spellings.keys()) longestWord = Math.max(longestWord, w.length);
  const rarest = rarity(Math.max(slugs.length, 1), 1);
  const { spellings, keywords, byTitle } = words;
  return { registry, slugs, idOfSlug, terms, spellings, keywords, ...phrases, byTitle, longestWord, rarest };
}

/**
 * Every category's words, read in turn: per stem, the highest field weight each category wrote it
 * in; every spelling typos are corrected into; each category's keyword sets and titles. Only each
 * category's phrases and entries are kept past its turn: its words are added to the
 * registry-wide maps at once, so a large peer's copy never holds its words twice while indexed.
 */
function * wordsSteps (registry: Registry, slugs: readonly string[], rules: MatcherRules, cache: ReadingCache | undefined) {
  const owners = new Map<string, Map<number, number>>();
  const spellings = new Map<string, string>();
  const keywords: Keywords[] = [];
  const byTitle = new Map<string, number>();
  const read: Pick<CategoryReading, 'soft' | 'exclusions'>[] = [];
  for (const [id, slug] of slugs.entries()) {
    yield;
    const reading = yield * readingOf(slug, registry.categories[slug] as Category, rules, cache);
    read.push({ soft: reading.soft, exclusions: reading.exclusions });
    for (const key of reading.titles) if (key !== '' && !byTitle.has(key)) byTitle.set(key, id);
    for (const { word, stem: s, weight, spelled } of reading.owned) {
      if (spelled) spellings.set(word, s);
      const perCategory = owners.get(s) ?? new Map<number, number>();
      perCategory.set(id, Math.max(perCategory.get(id) ?? 0, weight));
      owners.set(s, perCategory);
    }
    for (const { word, stem: s } of reading.everyday) if (!spellings.has(word)) spellings.set(word, s);
    keywords.push(reading.keywords);
  }
  return { owners, spellings, keywords, byTitle, read };
}

/** The phrase indexes, each by its first stem: keywords alone and in capitals, keyword phrases, phrases with stop words, not-about entries. */
function * phrasesSteps (slugs: readonly string[], keywords: readonly Keywords[], read: readonly Pick<CategoryReading, 'soft' | 'exclusions'>[]) {
  const single = new Map<string, number[]>();
  const acronyms = new Map<string, number[]>();
  const phraseStarts = new Map<string, { id: number; phrase: readonly string[] }[]>();
  const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [value]);
    else list.push(value);
  };
  for (const [id, k] of keywords.entries()) {
    yield;
    for (const s of k.single) push(single, s, id);
    for (const s of k.acronyms) push(acronyms, s, id);
    for (const phrase of k.phrases) push(phraseStarts, phrase[0]!, { id, phrase });
  }
  const softPhrases = new Map<string, SoftPhrase[]>();
  const namedSoft = slugs.map(() => new Set<string>());
  const exclusions = new Map<string, Exclusion[]>();
  for (const [id, slug] of slugs.entries()) {
    yield;
    for (const soft of read[id]!.soft) {
      push(softPhrases, soft.phrase[0]!, { id, ...soft });
      if (soft.named) for (const w of soft.soft) namedSoft[id]!.add(`~${w}`);
    }
    for (const { phrase, entry } of read[id]!.exclusions) push(exclusions, phrase[0]!, { slug, phrase, entry });
  }
  return { single, acronyms, phraseStarts, softPhrases, namedSoft, exclusions };
}
