import { BoundedMemo } from '../util/bounded-memo.js';
import { runAtOnce, runInSlices } from '../util/slices.js';
import type { Category, Registry } from '../registry/types.js';
import { capitalizedEverydayWords, contentWords, contentWordsOf, foldUnfolded, stem, unfold } from './normalize.js';
import { isEverydayWord } from './everyday-words.js';
import { editDistanceIndexSteps, SpellingBucketFull, type SpellingIndex } from './spelling.js';
import { isStopWordSlip } from './stop-words.js';

export const DEFAULT_THRESHOLD = 0.45;

export interface MatchCandidate {
  readonly slug: string;
  readonly score: number;
}

export type MatchOutcome =
  | {
      readonly kind: 'match';
      readonly slug: string;
      readonly category: Category;
      readonly score: number;
      readonly runnerUp: MatchCandidate | null;
    }
  | {
      readonly kind: 'no-match';
      /**
       * `empty-query`: nothing left after normalisation; `too-long`: longer than MAX_NORMALIZED_LENGTH
       * once normalised; `below-threshold`: no category scored enough; `too-vague`: the query is one
       * everyday word ("security", "keys"), which many topics share and none owns.
       */
      readonly reason: 'empty-query' | 'too-long' | 'below-threshold' | 'too-vague';
      readonly closest: MatchCandidate | null;
      readonly threshold: number;
    }
  | {
      readonly kind: 'no-match';
      /** The best two scored within MIN_MARGIN of each other: `contender` is the second. */
      readonly reason: 'too-close';
      readonly closest: MatchCandidate;
      readonly contender: MatchCandidate;
      readonly threshold: number;
    };

/**
 * The least a match must lead the runner-up by. On every labelled set, answers that led by less
 * than 0.10 were nearly all wrong (1 right, 7 wrong over four sets): a win by a hair between two
 * categories says the query is about neither, not about the one a word more in favour.
 */
export const MIN_MARGIN = 0.1;

/**
 * A topic that many of the query's words point to is named by more than chance: when four or
 * more distinct registry words of the leading category are in the query, it needs 0.10 less than
 * the threshold. Long plain-language requests ("my house should switch the lamps on by itself,
 * without sending data to a company") share many words with their topic, and many others with
 * none, which pull their score down; a near-miss shares one or two. On the labelled sets read so
 * far it answered 15 more questions rightly and 3 more wrongly.
 */
export const BROAD_EVIDENCE_WORDS = 4;
export const BROAD_EVIDENCE_DISCOUNT = 0.1;

/** The longest query the matcher reads, counted after normalisation (some characters unfold into several). */
export const MAX_NORMALIZED_LENGTH = 1000;

/**
 * Content words read per query: about twice the longest agent request in the labelled sets
 * (17), so that no query costs many times another.
 */
export const MAX_CONTENT_WORDS = 32;

/** A query normalised once, for asking many registries: its content words and its memo key. */
export interface PreparedQuery {
  /** Longer than MAX_NORMALIZED_LENGTH once normalised: not matched at all. */
  readonly tooLong: boolean;
  readonly words: readonly string[];
  /** Each word's stem, computed once for every registry asked. */
  readonly stems: readonly string[];
  readonly key: string;
  /** The query is one word as typed (no other word at all, common or not). */
  readonly oneWord: boolean;
  /** Everyday words it writes in capitals, stemmed ("STRIDE"): a curator's acronym, when the curator writes it so too. */
  readonly capitals: readonly string[];
}

/** Normalised first, then measured: the length limit holds for what the matcher actually reads. */
export function prepareQuery(query: string): PreparedQuery {
  const unfolded = unfold(query);
  const text = foldUnfolded(unfolded);
  if (text.length > MAX_NORMALIZED_LENGTH) return { tooLong: true, words: [], stems: [], key: '', oneWord: false, capitals: [] };
  // A real request names its topic in its first few dozen words; the rest would only add cost.
  const words = contentWordsOf(text).slice(0, MAX_CONTENT_WORDS);
  const oneWord = words.length === 1 && !/\S\s+\S/.test(text.trim());
  const stems = words.map(stem);
  const capitals = capitalizedEverydayWords(unfolded).filter((c) => stems.includes(c));
  return { tooLong: false, words, stems, key: words.join(' '), oneWord, capitals };
}

/** How each word of a query counted toward the chosen category (or the closest one). */
export interface Explanation {
  readonly outcome: MatchOutcome;
  /** Words that count for that category, with their weight (a keyword weighs three times). */
  readonly forCategory: readonly { readonly word: string; readonly weight: number; readonly keyword: boolean; readonly corrected?: string }[];
  /** Registry words that belong to other categories only: they count against it. */
  readonly against: readonly string[];
  /** Words no category knows: they count against every category. */
  readonly unknown: readonly string[];
  /** Categories the query is out of scope for, with the curator's not-about entries it holds. */
  readonly outOfScope: ReadonlyMap<string, readonly string[]>;
}

export interface Matcher {
  /** `prepared`: the query already normalised (one query, many registries: one key string shared by all). */
  match(query: string, threshold?: number, prepared?: PreparedQuery): MatchOutcome;
  /** What decided a query, for curators (`check --query`): the outcome and how each word counted. */
  explain(query: string, threshold?: number): Explanation;
  /** Every spelling this registry uses, in its order: what a shared spelling index is built from. */
  vocabulary(): Iterable<string>;
  /** Reads typo candidates from `index` (a shared one that answers as its own), or from its own again when undefined. */
  useSpelling(index: SpellingIndex | undefined): void;
  /** How many rankings and word corrections are remembered now (each bounded). */
  remembered(): { readonly rankings: number; readonly corrections: number };
}

/**
 * Shorter words are too ambiguous to correct ("rust" vs "trust"); a four-letter word is corrected
 * only when two neighbouring letters are swapped ("rsut"), the commonest slip of a fast typist.
 */
const MIN_TYPO_LENGTH = 4;
const MIN_ANY_TYPO_LENGTH = 5;
/**
 * Words looked up as typos per query, the first ones unknown: a query of many unknown long words
 * must not cost many lookups (a person makes a typo or two; past this, words are unknown).
 */
export const MAX_TYPO_LOOKUPS = 3;
/** How many unknown words' corrections the matcher remembers. */
export const MAX_REMEMBERED_WORDS = 10_000;
/** How many rankings (by normalised query) the matcher remembers. */
export const MAX_REMEMBERED_RANKINGS = 5_000;
/** A curated keyword (a tool name, jargon) says more about the topic than an everyday word. */
const KEYWORD_BONUS = 3;
/**
 * Weight of a query word the registry has never seen, relative to the rarest registry word.
 * When a category shares only one everyday word with the query, unknown words weigh heavily:
 * "rust removal" and "bitcoin price" share one word with a category and mean something else.
 * When it shares a keyword or several words, the query is about that topic and unknown words
 * are context ("my user wants to run bitcoin core on a spare laptop").
 */
const UNKNOWN_WEIGHT_WEAK = 1.6;
const UNKNOWN_WEIGHT_STRONG = 0.5;
/**
 * Weight of an unknown word that is no everyday English word: most often the name of a product,
 * a place or a tool ("nextcloud", "metamask", "jellyfin"), and a query that names a thing the
 * registry does not know is likely about that thing. It weighs three times as much against a
 * category none of whose keywords the query holds: "nextcloud setup on a raspberry pi" is about
 * Nextcloud, though "setup" is in Bitcoin Node Setup's name; "electrs on my bitcoin core node"
 * stays Bitcoin.
 */
const NAME_WEIGHT_NAMED = 1;
const NAME_WEIGHT_UNNAMED = 3;

interface Term {
  readonly weight: number;
  readonly slugs: readonly string[];
  /** The same categories by their place in the sorted slugs: what the scoring loop counts by. */
  readonly ids: readonly number[];
}

interface Hit {
  readonly stem: string;
  readonly term: Term;
  /** 1 for an exact word, less for a corrected typo. */
  readonly factor: number;
  /** For a corrected typo, the registry word it was read as. */
  readonly spelling?: string;
}

interface Keywords {
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
  /** Everyday words its name, description, tags or keywords write in capitals ("STRIDE"), stemmed. */
  readonly acronyms: ReadonlySet<string>;
}

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

export const PEER_INDEX_LIMITS: IndexLimits = { words: 50_000, wordsPerSpellingBucket: 500, phrasesPerWord: 256 };

export class IndexTooLarge extends Error {}

/**
 * Per query and registry, whatever the registry holds: keyword phrases compared and not-about
 * entries tried. A real query meets a handful of each; past these, the rest are not looked at,
 * so a registry crafted with thousands of phrases sharing a first word makes no query dearer.
 */
export const MAX_PHRASE_CHECKS = 1024;
export const MAX_SCOPE_CHECKS = 256;

/**
 * Builds the matcher for one registry, once. A category's score weighs the query words it
 * knows (rare words and curated keywords count more) against the query words that point
 * elsewhere or nowhere; misspelt words are corrected against the registry's vocabulary.
 */
export interface MatcherOptions {
  /** Refuse (IndexTooLarge) a registry beyond these; none by default (our own registry). */
  readonly limits?: IndexLimits;
}

export function buildMatcher(registry: Registry, defaultThreshold = DEFAULT_THRESHOLD, options: MatcherOptions = {}): Matcher {
  return runAtOnce(matcherSteps(registry, defaultThreshold, options));
}

/**
 * buildMatcher in slices of about 8 ms of work, each followed by `pause` (a turn of the event
 * loop): a peer's registry near the limits takes a few hundred milliseconds to index, which must
 * not be taken from requests in one piece.
 */
export function buildMatcherInSlices(registry: Registry, defaultThreshold: number, options: MatcherOptions & { readonly pause: () => Promise<unknown> }): Promise<Matcher> {
  return runInSlices(matcherSteps(registry, defaultThreshold, options), options.pause);
}

function* matcherSteps(registry: Registry, defaultThreshold: number, options: MatcherOptions): Generator<void, Matcher> {
  const slugs = Object.keys(registry.categories).sort();
  const { limits } = options;
  const { terms, spellings, keywords } = yield* indexTerms(registry, slugs);
  if (limits !== undefined && Math.max(terms.size, spellings.size) > limits.words) throw new IndexTooLarge(`more than ${limits.words} distinct words`);
  const keywordIndex = yield* indexKeywords(keywords);
  const exclusions = yield* indexExclusions(registry, slugs);
  if (limits !== undefined) {
    for (const [what, index] of [['keyword phrases', keywordIndex.phraseStarts], ['not-about entries', exclusions]] as const) {
      for (const list of index.values()) if (list.length > limits.phrasesPerWord) throw new IndexTooLarge(`more than ${limits.phrasesPerWord} ${what} starting with the same word`);
    }
  }
  const names = slugs.map((slug) => keywords.get(slug)!.name);
  const idOfSlug = new Map(slugs.map((slug, id) => [slug, id]));
  const phraseOnly = slugs.map((slug) => keywords.get(slug)!.phraseOnly);
  const described = slugs.map((slug) => keywords.get(slug)!.described);
  let longestWord = 0;
  for (const w of spellings.keys()) longestWord = Math.max(longestWord, w.length);
  // Scratch space for rank(), reused by every query (ranking is synchronous).
  const size = slugs.length;
  const tally = {
    evidence: new Float64Array(size),
    own: new Float64Array(size),
    shared: new Int32Array(size),
    named: new Int32Array(size),
    described: new Int32Array(size),
    touched: new Int32Array(size),
    mark: new Uint32Array(size),
    round: 1,
  };
  const rarest = Math.log(1 + Math.max(slugs.length, 1));
  let own;
  try {
    own = yield* editDistanceIndexSteps(spellings.keys(), limits === undefined ? {} : { maxBucket: limits.wordsPerSpellingBucket });
  } catch (err) {
    throw err instanceof SpellingBucketFull ? new IndexTooLarge(err.message) : err;
  }
  // A federation may hand this registry a shared index that answers as its own would (see
  // sharedSpellingSteps); its own index serves until then, and whenever none is given.
  let shared: SpellingIndex | undefined;
  const spelling = () => shared ?? own;

  // Misspelt and unknown words recur across queries; remembering what each resolved to spares
  // fuse.js the same search. Bounded: emptied when full, so memory stays flat under any traffic.
  const corrections = new BoundedMemo<string, Hit | null>(MAX_REMEMBERED_WORDS);
  // Agents ask the same things in different case and punctuation: rankings are remembered by
  // normalised query. Bounded the same way.
  const rankings = new BoundedMemo<string, Ranking>(MAX_REMEMBERED_RANKINGS);

  /** A registry word, exactly or (while `mayCorrect`) through a typo correction; `typo` says which was tried. */
  function resolve(word: string, exact: string, mayCorrect: boolean): { hit: Hit | undefined; typo: boolean } {
    const term = terms.get(exact);
    if (term !== undefined) return { hit: { stem: exact, term, factor: 1 }, typo: false };
    // A word longer than any registry word by more than two letters is no typo of one: not looked up.
    // Nor is an everyday English word: "remove" is no typo of "remote", "trust" none of "rust".
    if (word.length < MIN_TYPO_LENGTH || word.length > longestWord + 2 || isEverydayWord(word)) return { hit: undefined, typo: false };
    // A four-letter word is read only as a swap of two neighbouring letters ("rsut"): two lookups
    // in a map, so it uses none of the query's budget of typo searches.
    if (word.length < MIN_ANY_TYPO_LENGTH) return { hit: swapped(word), typo: false };
    if (!mayCorrect) return { hit: undefined, typo: false };
    return { hit: corrections.get(word, (w) => correct(w) ?? null) ?? undefined, typo: true };
  }

  /** The registry word a four-letter word is with two neighbouring letters swapped back, the first letter kept. */
  function swapped(word: string): Hit | undefined {
    for (let i = 1; i < word.length - 1; i++) {
      const candidate = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      const corrected = spellings.get(candidate);
      if (corrected !== undefined) return { stem: corrected, term: terms.get(corrected)!, factor: 1 - 0.15, spelling: candidate };
    }
    return undefined;
  }

  /** The registry word `word` is a typo of, if any. */
  function correct(word: string): Hit | undefined {
    // "bread" is not a typo of "dread": only words with the same first letter are candidates.
    for (const { word: candidate, edits } of spelling().candidates(word)) {
      const corrected = spellings.get(candidate);
      if (corrected === undefined) continue;
      // A registry word with letters added at its end is another word, not a slip: "nodev",
      // "nostro" and "nostra" are not "node" and "nostr".
      if (word.length > candidate.length && word.startsWith(candidate)) continue;
      // A corrected word counts for a little less than one spelt right.
      return { stem: corrected, term: terms.get(corrected)!, factor: 1 - 0.15 * edits, spelling: candidate };
    }
    return undefined;
  }

  /**
   * Per category, the stems of `sequence` that are its keywords, alone or as part of a keyword
   * phrase in a row, or an everyday word both the query and the category write in capitals. One
   * pass over the query through the keyword index, so the cost follows the query, not the number
   * of categories.
   */
  function keywordStems(sequence: readonly string[], capitals: readonly string[]): Map<string, Set<string>> {
    const found = new Map<string, Set<string>>();
    const add = (slug: string, stems: readonly string[]) => {
      const set = found.get(slug);
      if (set === undefined) found.set(slug, new Set(stems));
      else stems.forEach((s) => set.add(s));
    };
    let checks = 0;
    sequence.forEach((s, i) => {
      if (s === '') return;
      for (const slug of keywordIndex.single.get(s) ?? []) add(slug, [s]);
      if (capitals.includes(s)) for (const slug of keywordIndex.acronyms.get(s) ?? []) add(slug, [s]);
      for (const { slug, phrase } of keywordIndex.phraseStarts.get(s) ?? []) {
        if (++checks > MAX_PHRASE_CHECKS) return;
        if (i + phrase.length <= sequence.length && phrase.every((p, j) => sequence[i + j] === p)) add(slug, phrase);
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
  function excluded(stems: readonly string[]): Map<string, string[]> {
    const found = new Map<string, string[]>();
    const inQuery = new Set(stems);
    const seen = new Set<string>();
    let checks = 0;
    stems.forEach((s) => {
      if (seen.has(s)) return;
      seen.add(s);
      for (const { slug, phrase, entry } of exclusions.get(s) ?? []) {
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
  function readWords({ words, stems }: PreparedQuery, capitals: readonly string[]): { read: (Hit | undefined)[]; sequence: string[] } {
    const read: (Hit | undefined)[] = [];
    let typos = 0;
    for (const [i, word] of words.entries()) {
      const { hit, typo } = resolve(word, stems[i]!, typos < MAX_TYPO_LOOKUPS);
      if (typo) typos++;
      read.push(hit);
    }
    const sequence = read.map((hit) => hit?.stem ?? '');
    // An everyday word a letter from a word of a topic the query names by a keyword or its name
    // is a slip for that word ("mcp sever", "pasword manger"): everyday words are otherwise
    // never corrected ("sever" alone is a word). Within the same budget of lookups.
    if (typos >= MAX_TYPO_LOOKUPS || !read.some((hit, i) => hit === undefined && isEverydayWord(words[i]!))) return { read, sequence };
    const named = new Set<number>();
    for (const slug of keywordStems(sequence, capitals).keys()) named.add(idOfSlug.get(slug)!);
    for (const hit of read) for (const id of hit?.term.ids ?? []) if (names[id]!.has(hit!.stem)) named.add(id);
    if (named.size === 0) return { read, sequence };
    for (const [i, word] of words.entries()) {
      if (typos >= MAX_TYPO_LOOKUPS) break;
      if (read[i] !== undefined || word.length < MIN_ANY_TYPO_LENGTH || !isEverydayWord(word)) continue;
      typos++;
      for (const { word: candidate, edits } of spelling().candidates(word)) {
        // One letter only: a word two letters from a topic's word is another word ("attached" is no "attacker").
        if (edits > 1) break;
        const corrected = spellings.get(candidate);
        if (corrected === undefined || (word.length > candidate.length && word.startsWith(candidate))) continue;
        const term = terms.get(corrected)!;
        if (!term.ids.some((id) => named.has(id))) continue;
        read[i] = { stem: corrected, term, factor: 1 - 0.15 * edits, spelling: candidate };
        sequence[i] = corrected;
        break;
      }
    }
    return { read, sequence };
  }

  /** The query's words in capitals that this registry's curator writes in capitals too. */
  function ownCapitals({ capitals }: PreparedQuery): readonly string[] {
    return capitals.length === 0 ? capitals : capitals.filter((c) => keywordIndex.acronyms.has(c));
  }

  function rank(prepared: PreparedQuery, capitals: readonly string[]): Ranking {
    const { words, stems } = prepared;
    const hits = new Map<string, Hit>();
    let unknown = 0;
    let unnamed = 0;
    const { read, sequence } = readWords(prepared, capitals);
    for (const [i, hit] of read.entries()) {
      if (hit === undefined) {
        // A misspelt filler word ("tutoriall", "explaned") is filler: it says nothing either way.
        if (isStopWordSlip(words[i]!)) continue;
        if (isNameLike(words[i]!)) unnamed++;
        else unknown++;
        continue;
      }
      if ((hits.get(hit.stem)?.factor ?? 0) < hit.factor) hits.set(hit.stem, hit);
    }
    // A keyword weighs as much against the other categories as it weighs for its own.
    const strongBySlug = keywordStems(sequence, capitals);
    // "go go" is one word too.
    const distinct = new Set(stems).size;
    const strongAnywhere = strongBySlug.size === 0 ? NONE : new Set([...strongBySlug.values()].flatMap((set) => [...set]));

    // One pass over the hits and the categories each names (an inverted index): a category's
    // evidence is what its own words weigh; what weighs against it is every other hit, that is
    // the total of all hits less its own.
    // Counted in typed arrays by category number, reset only where touched: a category costs a
    // few additions per query word it shares, whatever the size of the registry.
    let touchedCount = 0;
    let total = 0;
    for (const hit of hits.values()) {
      const strongHere = strongAnywhere.has(hit.stem);
      const weight = hit.term.weight * (strongHere ? KEYWORD_BONUS : 1);
      total += weight;
      const ids = hit.term.ids;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (phraseOnly[id]!.has(hit.stem) && strongBySlug.get(slugs[id]!)?.has(hit.stem) !== true) continue;
        if (tally.mark[id] !== tally.round) {
          tally.mark[id] = tally.round;
          tally.touched[touchedCount++] = id;
          tally.evidence[id] = 0;
          tally.own[id] = 0;
          tally.shared[id] = 0;
          tally.named[id] = 0;
          tally.described[id] = 0;
        }
        tally.evidence[id]! += hit.term.weight * hit.factor * (strongHere && strongBySlug.get(slugs[id]!)?.has(hit.stem) ? KEYWORD_BONUS : 1);
        tally.own[id]! += weight;
        tally.shared[id]!++;
        if (names[id]!.has(hit.stem)) tally.named[id]!++;
        if (described[id]!.has(hit.stem)) tally.described[id]!++;
      }
    }
    tally.round = (tally.round % 0xffff_fffe) + 1;
    const outOfScope = exclusions.size === 0 ? NO_EXCLUSIONS : excluded(stems);
    // Ties go to the category whose own name holds more of the query's words ("rust"), then to
    // one the query holds a keyword of, then by slug. Only the best two are ever used: kept in one
    // pass rather than sorting every candidate.
    type Ranked = MatchCandidate & { id: number; named: number; anchored: boolean; shared: number };
    const before = (a: Ranked, b: Ranked) => b.score - a.score || b.named - a.named || Number(b.anchored) - Number(a.anchored) || (a.slug < b.slug ? -1 : 1);
    let first: Ranked | undefined;
    let second: Ranked | undefined;
    for (let t = 0; t < touchedCount; t++) {
      const id = tally.touched[t]!;
      const slug = slugs[id]!;
      const [evidence, own, shared, named] = [tally.evidence[id]!, tally.own[id]!, tally.shared[id]!, tally.named[id]!];
      const strong = strongBySlug.get(slug) ?? NONE;
      // Strong evidence: a keyword, or everyday words worth at least two words unique to this category.
      const perUnknown = strong.size > 0 || (shared > 1 && evidence >= 2 * rarest) ? UNKNOWN_WEIGHT_STRONG : UNKNOWN_WEIGHT_WEAK;
      // Long requests carry more context words: their weight grows with the square root of their number.
      // The curator said the category is not about this: a query that names it is about something else.
      if (outOfScope.has(slug)) continue;
      // A topic is named by a keyword or by the category's own words (name, description, tags):
      // "stride" is Threat Modeling's. Words found only in its example questions are context:
      // one or two of them in common ("old laptop", "machine") happen by chance.
      if (shared <= 2 && strong.size === 0 && tally.described[id] === 0) continue;
      // A query of one content word ("best way to learn Go") makes a topic only of a category it
      // names, by a word of its name or a keyword: one word its description or example questions
      // happen to use ("what could go wrong") is no topic.
      if (distinct === 1 && strong.size === 0 && named === 0) continue;
      const against = total - own + Math.sqrt(unknown) * perUnknown * rarest + Math.sqrt(unnamed) * (strong.size > 0 ? NAME_WEIGHT_NAMED : NAME_WEIGHT_UNNAMED) * rarest;
      const score = round(evidence / (evidence + against));
      // Most candidates fall clearly short of the best two: no object for them.
      if (second !== undefined && score < second.score) continue;
      const c = { id, slug, score, named, anchored: strong.size > 0 || named > 0, shared };
      if (first === undefined || before(c, first) < 0) [first, second] = [c, first];
      else if (second === undefined || before(c, second) < 0) second = c;
    }
    const candidates = [first, second].filter((c) => c !== undefined).map(({ slug, score }) => Object.freeze({ slug, score }));
    // One word that is, or was read as, an everyday word ("keys", "kyes"): too vague if it is the whole query.
    const only = words.length === 1 ? hits.values().next().value : undefined;
    // A word in capitals the curator writes so too ("STRIDE") is a name, not an everyday word.
    const vague = words.length === 1 && capitals.length === 0 && (isEverydayWord(words[0]!) || (only?.spelling !== undefined && isEverydayWord(only.spelling)));
    // The query names the leader and not the runner-up: a word of the leader's name, or one of its
    // keywords, that the runner-up's own words (name, description, tags) do not use ("rust" in
    // "write a web api in rust"). A word both describe themselves with ("security") names neither.
    const byTopic =
      first !== undefined &&
      second !== undefined &&
      !second.anchored &&
      // In an exact tie (most often two categories that each explain every word, at 1) the leader
      // needs its name and a keyword ("run my own email server" is Self-Hosted Email's, not a topic whose example
      // questions use "run", "email" and "server"); "server setup" names nothing.
      (first.score > second.score || (first.named > 0 && strongBySlug.has(first.slug))) &&
      [...hits.values()].some(
        (h) => (names[first!.id]!.has(h.stem) || strongBySlug.get(first!.slug)?.has(h.stem) === true) && !described[second!.id]!.has(h.stem),
      );
    return { candidates, byTopic, vague, leaderWords: first?.shared ?? 0 };
  }

  return {
    match(query, threshold = defaultThreshold, prepared = prepareQuery(query)) {
      const { words, key } = prepared;
      if (prepared.tooLong) return { kind: 'no-match', reason: 'too-long', closest: null, threshold };
      if (words.length === 0) {
        return { kind: 'no-match', reason: 'empty-query', closest: null, threshold };
      }
      // Capitals this registry's curator writes too change the ranking: they are part of what it is
      // remembered by. Others are not, so "LEARN RUST" is remembered as "learn rust".
      const capitals = ownCapitals(prepared);
      const remembered = capitals.length === 0 ? key : `${key}\u0000${capitals.join(' ')}`;
      const { candidates, byTopic, vague, leaderWords } = rankings.get(remembered, () => Object.freeze(rank(prepared, capitals)));
      const [best, second] = candidates;
      // A query of one everyday word and nothing else says too little to hand over three sources
      // with confidence ("security", "keys", "rust", or "kyes" read as "keys"); a name ("zigbee",
      // "bitcoind", "nostr") is specific enough alone, and so is "learn rust". Whether the query is
      // one word as typed is not part of the remembered ranking's key, so it is checked here.
      if (prepared.oneWord && vague) {
        return { kind: 'no-match', reason: 'too-vague', closest: best ?? null, threshold };
      }
      // Scores have three decimals: the lowered threshold is rounded to them too.
      const needed = leaderWords >= BROAD_EVIDENCE_WORDS ? Math.max(0, Math.round((threshold - BROAD_EVIDENCE_DISCOUNT) * 1000) / 1000) : threshold;
      if (best === undefined || best.score === 0 || best.score < needed) {
        return { kind: 'no-match', reason: 'below-threshold', closest: best ?? null, threshold: needed };
      }
      // A leader the query names (a keyword, a word of its name) over a runner-up it does not name
      // wins by topic, however close the scores. Scores have three decimals: compared in thousandths.
      if (second !== undefined && Math.round((best.score - second.score) * 1000) < Math.round(MIN_MARGIN * 1000) && !byTopic) {
        return { kind: 'no-match', reason: 'too-close', closest: best, contender: second, threshold };
      }
      const category = registry.categories[best.slug] as Category;
      return { kind: 'match', slug: best.slug, category, score: best.score, runnerUp: second ?? null };
    },
    remembered: () => ({ rankings: rankings.size, corrections: corrections.size }),
    explain(query, threshold = defaultThreshold) {
      const prepared = prepareQuery(query);
      const outcome = this.match(query, threshold, prepared);
      const slug = outcome.kind === 'match' ? outcome.slug : outcome.closest?.slug;
      const forCategory: { word: string; weight: number; keyword: boolean; corrected?: string }[] = [];
      const against: string[] = [];
      const unknown: string[] = [];
      const capitals = ownCapitals(prepared);
      const { read, sequence } = readWords(prepared, capitals);
      const resolved = read.map((hit, i) => ({ word: prepared.words[i]!, hit }));
      const strong = slug === undefined ? NONE : (keywordStems(sequence, capitals).get(slug) ?? NONE);
      for (const { word, hit } of resolved) {
        if (hit === undefined) {
          if (!isStopWordSlip(word)) unknown.push(word);
        }
        else if (slug !== undefined && hit.term.slugs.includes(slug) && (strong.has(hit.stem) || !keywords.get(slug)!.phraseOnly.has(hit.stem))) {
          const keyword = strong.has(hit.stem);
          forCategory.push({ word, weight: round(hit.term.weight * hit.factor * (keyword ? KEYWORD_BONUS : 1)), keyword, ...(hit.factor < 1 ? { corrected: hit.stem } : {}) });
        } else against.push(word);
      }
      return { outcome, forCategory, against, unknown, outOfScope: excluded(prepared.stems) };
    },
    vocabulary: () => spellings.keys(),
    useSpelling(index) {
      shared = index;
    },
  };
}

/** Whether the query's stems hold a not-about entry's (see excluded()). */
function holds(stems: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length < 3) return stems.some((_, i) => phrase.every((p, j) => stems[i + j] === p));
  const span = Math.min(phrase.length + 1, stems.length);
  for (let start = 0; start + span <= stems.length; start++) {
    const run = stems.slice(start, start + span);
    if (phrase.every((p) => run.includes(p))) return true;
  }
  return false;
}

/** An unknown word that is no everyday word, of letters: a name, as far as the matcher can tell. */
function isNameLike(word: string): boolean {
  return word.length >= 3 && /[a-z]/.test(word) && !isEverydayWord(word);
}

/** The best two candidates, whether the query names the best and not the second, whether its one word is an everyday word, and how many words point to the best. */
interface Ranking {
  readonly candidates: readonly MatchCandidate[];
  readonly byTopic: boolean;
  readonly vague: boolean;
  /** How many distinct registry words of the leading category the query holds. */
  readonly leaderWords: number;
}

/** Every stem the registry uses with the categories that use it, each spelling's stem, and each category's keywords. */
function* indexTerms(registry: Registry, slugs: readonly string[]) {
  const owners = new Map<string, string[]>();
  const spellings = new Map<string, string>();
  const keywords = new Map<string, Keywords>();
  for (const slug of slugs) {
    const c = registry.categories[slug] as Category;
    const described = [slug.replace(/-/g, ' '), c.name, c.description, ...c.tags].join(' ');
    const stems = new Set<string>();
    // Typos are corrected into these plain words only, never into keywords: jargon is typed by
    // those who know it, and a near spelling of a keyword is more often another name ("postgres"
    // is no "postgrey", "substack" no "shostack").
    for (const text of [described, ...c.queryPatterns]) {
      // One step per text: a category with hundreds of long example questions is indexed in pieces.
      yield;
      for (const word of contentWords(text)) {
        const s = stem(word);
        spellings.set(word, s);
        stems.add(s);
      }
    }
    const keywordWords: string[][] = [];
    for (const keyword of c.keywords) {
      yield;
      keywordWords.push(contentWords(keyword).map(stem));
    }
    for (const seq of keywordWords) if (seq.length === 1) stems.add(seq[0]!);
    // A word the category uses only inside a keyword of several words ("machine" of "state
    // machine") is no evidence alone: it counts when the whole keyword is in the query, in a row.
    const phraseOnly = new Set<string>();
    for (const seq of keywordWords) {
      if (seq.length > 1) for (const s of seq) if (!stems.has(s)) phraseOnly.add(s);
    }
    for (const s of phraseOnly) stems.add(s);
    const describedStems = new Set(contentWords(described).map(stem));
    for (const s of stems) {
      const list = owners.get(s) ?? [];
      list.push(slug);
      owners.set(s, list);
    }
    const single = new Set<string>();
    const phrases: string[][] = [];
    for (const seq of keywordWords) {
      if (seq.length === 1) single.add(seq[0]!);
      else if (seq.length > 1) phrases.push(seq);
    }
    const name = new Set(contentWords(`${slug.replace(/-/g, ' ')} ${c.name}`).map(stem));
    const acronyms = new Set(capitalizedEverydayWords(unfold([described, ...c.keywords].join(' '))));
    keywords.set(slug, { name, single, phrases, phraseOnly, described: describedStems, acronyms });
  }
  const terms = new Map<string, Term>();
  const idOf = new Map(slugs.map((slug, i) => [slug, i]));
  for (const [s, list] of owners) {
    yield;
    terms.set(s, { weight: Math.log(1 + slugs.length / list.length), slugs: list, ids: list.map((slug) => idOf.get(slug)!) });
  }
  return { terms, spellings, keywords };
}

const NO_EXCLUSIONS: ReadonlyMap<string, readonly string[]> = new Map();

/** Not-about entries as stem sequences, by their first stem. */
function* indexExclusions(registry: Registry, slugs: readonly string[]) {
  const index = new Map<string, { slug: string; phrase: readonly string[]; entry: string }[]>();
  for (const slug of slugs) {
    for (const entry of (registry.categories[slug] as Category).notAbout ?? []) {
      yield;
      const phrase = contentWords(entry).map(stem);
      if (phrase.length === 0) continue;
      const list = index.get(phrase[0]!);
      if (list === undefined) index.set(phrase[0]!, [{ slug, phrase, entry }]);
      else list.push({ slug, phrase, entry });
    }
  }
  return index;
}

/** Keyword stems to the categories they belong to, and keyword phrases by their first stem. */
function* indexKeywords(keywords: ReadonlyMap<string, Keywords>) {
  const single = new Map<string, string[]>();
  const acronyms = new Map<string, string[]>();
  const phraseStarts = new Map<string, { slug: string; phrase: readonly string[] }[]>();
  for (const [slug, k] of keywords) {
    yield;
    for (const s of k.single) {
      const list = single.get(s);
      if (list === undefined) single.set(s, [slug]);
      else list.push(slug);
    }
    for (const s of k.acronyms) {
      const list = acronyms.get(s);
      if (list === undefined) acronyms.set(s, [slug]);
      else list.push(slug);
    }
    for (const phrase of k.phrases) {
      const list = phraseStarts.get(phrase[0]!);
      if (list === undefined) phraseStarts.set(phrase[0]!, [{ slug, phrase }]);
      else list.push({ slug, phrase });
    }
  }
  return { single, phraseStarts, acronyms };
}

const NONE: ReadonlySet<string> = new Set();

/** Scores are reported to agents; three decimals also make ties exact. */
function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
