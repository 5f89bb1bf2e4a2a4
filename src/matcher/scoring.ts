import { BoundedMemo } from '../util/bounded-memo.js';
import { isEverydayWord } from './everyday-words.js';
import { rarity, TERM_DESCRIBES, TERM_NAMES, TERM_PHRASE_ONLY, type Keywords, type MatcherIndex, type Term } from './index.js';
import type { PreparedQuery } from './query.js';
import type { MatcherRules } from './rules.js';
import type { SpellingIndex } from './spelling.js';
import { isStopWordSlip } from './stop-words.js';

/** How many unknown words' corrections the matcher remembers. */
export const MAX_REMEMBERED_WORDS = 10_000;

/**
 * Per query and registry, whatever the registry holds: keyword phrases compared and not-about
 * entries tried. A real query meets a handful of each; past these, the rest are not looked at,
 * so a registry crafted with thousands of phrases sharing a first word makes no query dearer.
 */
export const MAX_PHRASE_CHECKS = 1024;
export const MAX_SCOPE_CHECKS = 256;

export interface MatchCandidate {
  readonly slug: string;
  readonly score: number;
  /** How near the category is to the query in meaning (0 to 1), where the semantic stage ran. */
  readonly similarity?: number;
}

export interface Hit {
  readonly stem: string;
  readonly term: Term;
  /** 1 for an exact word, less for a corrected typo. */
  readonly factor: number;
  /** For a corrected typo, the registry word it was read as. */
  readonly spelling?: string;
}

/** A category the query would have gone to but for the curator's not-about entries, which the query holds. */
export interface ScopeRefusal {
  readonly slug: string;
  readonly score: number;
  readonly entries: readonly string[];
}

/** The best candidates, and what the decision needs to know about the query and the leader. */
export interface Ranking {
  /** At most `declineCandidates` (rules.ts), best first. */
  readonly candidates: readonly MatchCandidate[];
  /**
   * What a decline names: the candidates first, then the best other categories the query shares
   * words with (too few to answer with): at most `declineCandidates`.
   */
  readonly declineCandidates: readonly MatchCandidate[];
  /** The query names the leader and not the runner-up (see rank()). */
  readonly byTopic: boolean;
  /** Its one word is an everyday word. */
  readonly vague: boolean;
  /** How many distinct registry words of the leading category the query holds. */
  readonly leaderWords: number;
  /** The best category kept out by its not-about entries, when it led every candidate. */
  readonly scopeRefusal?: ScopeRefusal;
}

export interface Scorer {
  /** `asker`: who asks (see Matcher.match): spelling corrections are remembered per asker too. */
  rank(prepared: PreparedQuery, capitals: readonly string[], asker?: string): Ranking;
  /** Each query word as a registry word or none, and the stems in query order ('' for none). */
  readWords(prepared: PreparedQuery, capitals: readonly string[]): { read: (Hit | undefined)[]; sequence: string[] };
  /** Per category number, the stems of `sequence` that are its keywords. */
  keywordStems(sequence: readonly string[], capitals: readonly string[]): Map<number, Set<string>>;
  /** Per stop word (stemmed) of a curator's phrase found whole in `sequence`, the categories whose phrase it is. */
  softPhraseHits(sequence: readonly string[]): Map<string, Set<number>>;
  /** Per category slug, the not-about entries the query holds. */
  excluded(stems: readonly string[]): Map<string, string[]>;
  /** The query's words in capitals that this registry's curator writes in capitals too. */
  ownCapitals(prepared: PreparedQuery): readonly string[];
  remembered(): number;
}

const NONE: ReadonlySet<string> = new Set();
const NO_EXCLUSIONS: ReadonlyMap<string, readonly string[]> = new Map();

/**
 * A category's score weighs the query words it knows (rare words, and words from its stronger
 * fields, count more) against the query words that point elsewhere or nowhere; misspelt words
 * are corrected against the registry's vocabulary.
 */
export function createScorer (ix: MatcherIndex, rules: MatcherRules, spelling: () => SpellingIndex): Scorer {
  return new RegistryScorer(ix, rules, spelling);
}

class RegistryScorer implements Scorer {
  readonly #ix: MatcherIndex;
  readonly #rules: MatcherRules;
  readonly #spelling: () => SpellingIndex;
  // Scratch space for rank(), reused by every query (ranking is synchronous).
  readonly #tally: Tally;
  // Misspelt and unknown words recur across queries; remembering what each resolved to spares the
  // same search. Bounded: emptied when full, so memory stays flat under any traffic.
  readonly #corrections = new BoundedMemo<string, Hit | null>(MAX_REMEMBERED_WORDS);
  // Who asks the query being ranked: rank runs start to end without yielding, so this is read
  // only while it runs. What one client's misspelling resolved to is never another's shortcut.
  #asker = '';

  constructor (ix: MatcherIndex, rules: MatcherRules, spelling: () => SpellingIndex) {
    this.#ix = ix;
    this.#rules = rules;
    this.#spelling = spelling;
    const size = ix.slugs.length;
    this.#tally = {
      evidence: new Float64Array(size),
      own: new Float64Array(size),
      shared: new Int32Array(size),
      named: new Int32Array(size),
      described: new Int32Array(size),
      touched: new Int32Array(size),
      mark: new Uint32Array(size),
      round: 1,
    };
  }

  remembered (): number {
    return this.#corrections.size;
  }

  #typo (stem: string, edits: number, spelling: string): Hit {
    return { stem, term: this.#ix.terms.get(stem)!, factor: 1 - this.#rules.typoPenalty * edits, spelling };
  }

  /** A registry word, exactly or (while `mayCorrect`) through a typo correction; `typo` says which was tried. */
  #resolve (word: string, exact: string, mayCorrect: boolean): { hit: Hit | undefined; typo: boolean } {
    const term = this.#ix.terms.get(exact);
    if (term !== undefined) return { hit: { stem: exact, term, factor: 1 }, typo: false };
    // A word longer than any registry word by more than two letters is no typo of one: not looked up.
    // Nor is an everyday English word: "remove" is no typo of "remote", "trust" none of "rust".
    if (word.length < this.#rules.minTypoLength || word.length > this.#ix.longestWord + 2 || isEverydayWord(word)) return { hit: undefined, typo: false };
    // A four-letter word is read only as a swap of two neighbouring letters ("rsut"): two lookups
    // in a map, so it uses none of the query's budget of typo searches.
    if (word.length < this.#rules.minAnyTypoLength) return { hit: this.#swapped(word), typo: false };
    if (!mayCorrect) return { hit: undefined, typo: false };
    return { hit: this.#corrections.get(`${this.#asker}\u0000${word}`, () => this.#correct(word) ?? null) ?? undefined, typo: true };
  }

  /** The registry word a four-letter word is with two neighbouring letters swapped back, the first letter kept. */
  #swapped (word: string): Hit | undefined {
    for (let i = 1; i < word.length - 1; i++) {
      const candidate = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      const corrected = this.#ix.spellings.get(candidate);
      if (corrected !== undefined) return this.#typo(corrected, 1, candidate);
    }
    return undefined;
  }

  /** The registry word `word` is a typo of, if any. */
  #correct (word: string): Hit | undefined {
    // "bread" is not a typo of "dread": only words with the same first letter are candidates.
    for (const { word: candidate, edits } of this.#spelling().candidates(word, this.#asker)) {
      const corrected = this.#ix.spellings.get(candidate);
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
      for (const id of this.#ix.single.get(s) ?? []) add(id, [s]);
      if (capitals.includes(s)) for (const id of this.#ix.acronyms.get(s) ?? []) add(id, [s]);
      for (const { id, phrase } of this.#ix.phraseStarts.get(s) ?? []) {
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
    if (!this.#rules.scopeEntries) return found;
    const inQuery = new Set(stems);
    const seen = new Set<string>();
    let checks = 0;
    stems.forEach((s) => {
      if (seen.has(s)) return;
      seen.add(s);
      for (const { slug, phrase, entry } of this.#ix.exclusions.get(s) ?? []) {
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
      const { hit, typo: tried } = this.#resolve(word, stems[i]!, typos < this.#rules.maxTypoLookups);
      if (tried) typos++;
      read.push(hit);
    }
    const sequence = read.map((hit) => hit?.stem ?? '');
    // An everyday word a letter from a word of a topic the query names by a keyword or its name
    // is a slip for that word ("mcp sever", "pasword manger"): everyday words are otherwise
    // never corrected ("sever" alone is a word). Within the same budget of lookups.
    if (!this.#rules.slipsNextToTopic || typos >= this.#rules.maxTypoLookups || !read.some((hit, i) => hit === undefined && isEverydayWord(words[i]!))) {
      return { read, sequence };
    }
    const named = new Set<number>();
    for (const id of this.keywordStems(sequence, capitals).keys()) named.add(id);
    for (const hit of read) for (const id of hit?.term.ids ?? []) if (this.#ix.keywords[id]!.name.has(hit!.stem)) named.add(id);
    if (named.size === 0) return { read, sequence };
    for (const [i, word] of words.entries()) {
      if (typos >= this.#rules.maxTypoLookups) break;
      if (read[i] !== undefined || word.length < this.#rules.minAnyTypoLength || !isEverydayWord(word)) continue;
      typos++;
      for (const { word: candidate, edits } of this.#spelling().candidates(word, this.#asker)) {
        // One letter only: a word two letters from a topic's word is another word ("attached" is no "attacker").
        if (edits > 1) break;
        const corrected = this.#ix.spellings.get(candidate);
        if (corrected === undefined || (word.length > candidate.length && word.startsWith(candidate))) continue;
        const term = this.#ix.terms.get(corrected)!;
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
      for (const { id, phrase, soft } of this.#ix.softPhrases.get(s) ?? []) {
        if (++checks > MAX_PHRASE_CHECKS) return;
        if (i + phrase.length > sequence.length || !phrase.every((p, j) => sequence[i + j] === p)) continue;
        for (const w of soft) found.set(w, (found.get(w) ?? new Set()).add(id));
      }
    });
    return found;
  }

  ownCapitals ({ capitals }: PreparedQuery): readonly string[] {
    return capitals.length === 0 ? capitals : capitals.filter((c) => this.#ix.acronyms.has(c));
  }

  /**
   * The query read in steps: its words as registry words (hits), the keywords it holds, each
   * category's evidence tallied from the hits (an inverted index), each touched category scored,
   * and the best few kept; then what the decision needs to know about the leader.
   */
  rank (prepared: PreparedQuery, capitals: readonly string[], askedBy = ''): Ranking {
    const [rules, tally] = [this.#rules, this.#tally];
    this.#asker = askedBy;
    const read = this.#hitsOf(prepared, capitals);
    // The words that say something: filler slips aside (counted before phrases' stop words are read as hits).
    const considered = read.hits.size + read.unknown + read.unnamed;
    // A keyword weighs as much against the other categories as it weighs for its own.
    const strongById = this.keywordStems(read.sequence, capitals);
    if (rules.stopWordsInPhrases && prepared.phraseWords.length > 0 && this.#ix.softPhrases.size > 0) {
      this.#addSoftPhraseHits(prepared.phraseWords, read.hits, strongById);
    }
    const { touchedCount, total } = this.#tallied(read.hits, strongById);
    const query: QueryTally = { ...read, prepared, strongById, total, considered };
    const outOfScope = this.#ix.exclusions.size === 0 ? NO_EXCLUSIONS : this.excluded(prepared.stems);
    // "go go" is one word too.
    const distinct = new Set(prepared.stems).size;
    const best: Ranked[] = [];
    // What a decline names: the best few by score, including categories the rules below keep
    // from answering (a word or two in common is too little to answer with, enough to suggest).
    const nearby: Ranked[] = [];
    let refused: ScopeRefusal | undefined;
    for (let t = 0; t < touchedCount; t++) {
      const id = tally.touched[t]!;
      const slug = this.#ix.slugs[id]!;
      const strong = strongById.get(id) ?? NONE;
      const named = tally.named[id]!;
      const shared = tally.shared[id]!;
      const c = { id, slug, score: round(this.#scoreOf(id, query)), named, anchored: strong.size > 0 || named > 0, shared };
      // The curator said the category is not about this: a query that names it is about something
      // else. Never an answer nor a candidate; the closest such category is what a decline explains.
      if (outOfScope.has(slug)) {
        if (refused === undefined || c.score > refused.score) refused = { slug, score: c.score, entries: outOfScope.get(slug)! };
        continue;
      }
      keepBest(nearby, c, rules.declineCandidates);
      if (rules.contextNeedsStrongerEvidence && shared <= rules.chanceWords && strong.size === 0 && tally.described[id] === 0) continue;
      // "best way to learn Go": one word its description or example questions happen to use ("what could go wrong") is no topic.
      if (rules.oneWordNeedsName && distinct === 1 && strong.size === 0 && named === 0) continue;
      keepBest(best, c, rules.declineCandidates);
    }
    const [first, second] = best;
    const candidates = best.map(({ slug, score }) => Object.freeze({ slug, score }));
    // A refusal matters to a decline only when the category it kept out led every candidate.
    const scopeRefusal = refused !== undefined && (first === undefined || refused.score > first.score) ? Object.freeze(refused) : undefined;
    return {
      candidates,
      declineCandidates: Object.freeze(withNearby(candidates, nearby, rules.declineCandidates)),
      byTopic: namesLeader(first, second, read.hits, strongById, this.#ix.keywords),
      vague: isVague(prepared.words, distinct, read.hits, capitals),
      leaderWords: first?.shared ?? 0,
      ...(scopeRefusal === undefined ? {} : { scopeRefusal }),
    };
  }

  /** The query's words as registry words (the best reading of each stem), and how many say nothing the registry knows. */
  #hitsOf (prepared: PreparedQuery, capitals: readonly string[]): { hits: Map<string, Hit>; unknown: number; unnamed: number; sequence: string[] } {
    const hits = new Map<string, Hit>();
    let unknown = 0;
    let unnamed = 0;
    const { read, sequence } = this.readWords(prepared, capitals);
    for (const [i, hit] of read.entries()) {
      if (hit === undefined) {
        // A misspelt filler word ("tutoriall", "explaned") is filler: it says nothing either way.
        if (isStopWordSlip(prepared.words[i]!)) continue;
        if (isNameLike(prepared.words[i]!)) unnamed++;
        else unknown++;
        continue;
      }
      if ((hits.get(hit.stem)?.factor ?? 0) < hit.factor) hits.set(hit.stem, hit);
    }
    return { hits, unknown, unnamed, sequence };
  }

  /**
   * A curator's phrase that holds a stop word ("first aid", "day hike"), whole in the query: its
   * stop words count for that category as a keyword does ("day" tells a day hike from a
   * backpacking trip), and nowhere else. Read as extra hits under their own key.
   */
  #addSoftPhraseHits (phraseWords: readonly string[], hits: Map<string, Hit>, strongById: Map<number, Set<string>>): void {
    for (const [stem, ids] of this.softPhraseHits(phraseWords)) {
      const key = `~${stem}`;
      const list = [...ids];
      // Such a word names a category whose name's phrase holds it ("~day" of "Day hiking").
      const flags = Uint8Array.from(list, (id) => (this.#ix.namedSoft[id]!.has(key) ? TERM_NAMES : 0));
      hits.set(key, {
        stem: key,
        term: { weight: rarity(this.#ix.slugs.length, list.length), slugs: list.map((id) => this.#ix.slugs[id]!), ids: list, fields: list.map(() => 1), flags },
        factor: 1,
      });
      for (const id of list) {
        const set = strongById.get(id);
        if (set === undefined) strongById.set(id, new Set([key]));
        else set.add(key);
      }
    }
  }

  /**
   * One pass over the hits and the categories each names (an inverted index): a category's
   * evidence is what its own words weigh; what weighs against it is every other hit, that is the
   * total of all hits less its own. Counted in typed arrays by category number, reset only where
   * touched: a category costs a few additions per query word it shares, whatever the size of the
   * registry. Returns how many categories were touched (tally.touched) and the hits' total weight.
   */
  #tallied (hits: ReadonlyMap<string, Hit>, strongById: ReadonlyMap<number, ReadonlySet<string>>): { touchedCount: number; total: number } {
    const [rules, tally] = [this.#rules, this.#tally];
    const strongAnywhere = strongById.size === 0 ? NONE : new Set([...strongById.values()].flatMap((set) => [...set]));
    let touchedCount = 0;
    let total = 0;
    for (const hit of hits.values()) {
      const strongHere = strongAnywhere.has(hit.stem);
      const weight = hit.term.weight * (strongHere ? rules.keywordWeight : 1);
      total += weight;
      const { ids, fields, flags } = hit.term;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const strong = strongById.size === 0 ? undefined : strongById.get(id);
        const what = flags[i]!;
        if ((what & TERM_PHRASE_ONLY) !== 0 && strong?.has(hit.stem) !== true) continue;
        if (tally.mark[id] !== tally.round) {
          tally.mark[id] = tally.round;
          tally.touched[touchedCount++] = id;
          tally.evidence[id] = 0;
          tally.own[id] = 0;
          tally.shared[id] = 0;
          tally.named[id] = 0;
          tally.described[id] = 0;
        }
        tally.evidence[id]! += hit.term.weight * hit.factor * (strongHere && strong?.has(hit.stem) === true ? rules.keywordWeight : fields[i]!);
        tally.own[id]! += weight;
        tally.shared[id]!++;
        if ((what & TERM_NAMES) !== 0) tally.named[id]!++;
        if ((what & TERM_DESCRIBES) !== 0) tally.described[id]!++;
      }
    }
    tally.round = (tally.round % 0xffff_fffe) + 1;
    return { touchedCount, total };
  }

  /** Category `id`'s score for the query (0 to 1, unrounded): its evidence against what points elsewhere or nowhere. */
  #scoreOf (id: number, q: QueryTally): number {
    const [rules, tally, { keywords, rarest }] = [this.#rules, this.#tally, this.#ix];
    const { intents, countries } = q.prepared;
    const [evidence, own, shared] = [tally.evidence[id]!, tally.own[id]!, tally.shared[id]!];
    const strong = q.strongById.get(id) ?? NONE;
    // Strong evidence: a keyword, or several everyday words worth as many of the registry's rarest (strongEvidenceWords).
    const several = shared >= rules.strongEvidenceWords && evidence >= rules.strongEvidenceWords * rarest;
    const perUnknown = strong.size > 0 || several ? rules.unknownWeightStrong : rules.unknownWeightWeak;
    let intent = 0;
    for (const s of intents) if (!keywords[id]!.all.has(s)) intent++;
    // A short question that names a country the category is not bound to asks about that
    // country's rules ("small claims court limit in Ontario" of a topic on England and Wales):
    // as `placeIntentWords` intent words (two), since a place states what is asked as plainly as a price does, and
    // the rest of such a question is the category's own words. A long request's places are
    // most often background (where the asker moved from, an employer's country).
    const bound = keywords[id]!.countries;
    if (rules.placesBindCategories && bound.size > 0 && countries.length > 0 && q.considered < rules.longRequestWords && !countries.some((c) => bound.has(c))) {
      intent += rules.placeIntentWords;
    }
    // Long requests carry more context words: their weight grows with the square root of their
    // number (unknown words always; in a long request, other categories' words too).
    const others = q.hits.size - shared;
    const elsewhere = rules.longRequestBackground && q.considered >= rules.longRequestWords && others > 1 ? (q.total - own) / Math.sqrt(others) : q.total - own;
    const against =
      elsewhere +
      Math.sqrt(q.unknown) * perUnknown * rarest +
      Math.sqrt(q.unnamed) * (strong.size > 0 ? rules.nameWeightNamed : rules.nameWeightUnnamed) * rarest +
      intent * rules.intentWeight * rarest;
    const score = evidence / (evidence + against);
    // In a short query every word was chosen: when the category explains fewer than half of
    // them, the others say what is asked ("svelte dresses for petite women"), and the score
    // falls with the share it explains. A long request's background words are not held against it.
    if (q.considered <= rules.shortQueryWords) {
      const explained = shared / q.considered;
      if (explained < rules.minExplained) return score * (explained / rules.minExplained);
    }
    return score;
  }
}

/** Per category number, what the query's hits add up to; `touched` lists the categories touched this round (`mark` equal to `round`). */
interface Tally {
  readonly evidence: Float64Array;
  readonly own: Float64Array;
  readonly shared: Int32Array;
  readonly named: Int32Array;
  readonly described: Int32Array;
  readonly touched: Int32Array;
  readonly mark: Uint32Array;
  round: number;
}

/** What scoring a category needs to know of the query once its hits are tallied. */
interface QueryTally {
  readonly prepared: PreparedQuery;
  readonly hits: ReadonlyMap<string, Hit>;
  readonly strongById: ReadonlyMap<number, ReadonlySet<string>>;
  /** The hits' total weight. */
  readonly total: number;
  readonly unknown: number;
  readonly unnamed: number;
  /** The words that say something: filler slips aside. */
  readonly considered: number;
}

type Ranked = MatchCandidate & { id: number; named: number; anchored: boolean; shared: number };

/**
 * Ties go to the category whose own name holds more of the query's words ("rust"), then to one
 * the query holds a keyword of, then by slug.
 */
function before (a: Ranked, b: Ranked): number {
  return b.score - a.score || b.named - a.named || Number(b.anchored) - Number(a.anchored) || (a.slug < b.slug ? -1 : 1);
}

/** Keeps `c` among the best `count` of `list` (in order): only the best few are ever used, kept in one pass rather than sorting every candidate. */
function keepBest (list: Ranked[], c: Ranked, count: number): void {
  if (list.length === count && before(c, list[count - 1]!) > 0) return;
  let at = list.length;
  while (at > 0 && before(c, list[at - 1]!) < 0) at--;
  list.splice(at, 0, c);
  if (list.length > count) list.pop();
}

/** What a decline names: the answerable candidates first, then the others the query shares words with, `count` at most. */
function withNearby (candidates: readonly MatchCandidate[], nearby: readonly Ranked[], count: number): MatchCandidate[] {
  const named = [...candidates];
  for (const { slug, score } of nearby) {
    if (named.length < count && !named.some((d) => d.slug === slug)) named.push(Object.freeze({ slug, score }));
  }
  return named;
}

/**
 * The query names the leader and not the runner-up: a word of the leader's name, or one of its
 * keywords, that the runner-up's own words (name, description, tags) do not use ("rust" in
 * "write a web api in rust"). A word both describe themselves with ("security") names neither.
 */
function namesLeader (
  first: Ranked | undefined,
  second: Ranked | undefined,
  hits: ReadonlyMap<string, Hit>,
  strongById: ReadonlyMap<number, ReadonlySet<string>>,
  keywords: readonly Keywords[]
): boolean {
  return (
    first !== undefined &&
    second !== undefined &&
    !second.anchored &&
    // In an exact tie (most often two categories that each explain every word, at 1) the leader
    // needs its name and a keyword ("run my own email server" is Self-Hosted Email's, not a topic
    // whose example questions use "run", "email" and "server"); "server setup" names nothing.
    (first.score > second.score || (first.named > 0 && strongById.has(first.id))) &&
    [...hits.values()].some((h) =>
      (keywords[first.id]!.name.has(h.stem) || strongById.get(first.id)?.has(h.stem) === true) &&
      !keywords[second.id]!.described.has(h.stem)
    )
  );
}

/** One word that is, or was read as, an everyday word ("keys", "kyes"): too vague if it is the whole query. */
function isVague (words: readonly string[], distinct: number, hits: ReadonlyMap<string, Hit>, capitals: readonly string[]): boolean {
  const single = distinct === 1 && words.every((w) => w === words[0]);
  const only = single ? hits.values().next().value : undefined;
  // A word in capitals the curator writes so too ("STRIDE") is a name, not an everyday word.
  return single && capitals.length === 0 && (isEverydayWord(words[0]!) || (only?.spelling !== undefined && isEverydayWord(only.spelling)));
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

/** An unknown word that is no everyday word, of letters: a name, as far as the matcher can tell. */
function isNameLike (word: string): boolean {
  return word.length >= 3 && /[a-z]/.test(word) && !isEverydayWord(word);
}

/** Scores are reported to agents; three decimals also make ties exact. */
export function round (n: number): number {
  return Math.round(n * 1000) / 1000;
}
