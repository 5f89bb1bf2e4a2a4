import { isEverydayWord } from './everyday-words.js';
import { rarity, TERM_DESCRIBES, TERM_NAMES, TERM_PHRASE_ONLY, type Keywords, type MatcherIndex } from './index.js';
import type { PreparedQuery } from './query.js';
import { QueryReader, type Hit } from './reading.js';
import type { MatcherRules } from './rules.js';
import type { SpellingIndex } from './spelling.js';
import { isStopWordSlip } from './stop-words.js';

export { MAX_PHRASE_CHECKS, MAX_REMEMBERED_WORDS, MAX_SCOPE_CHECKS, type Hit } from './reading.js';

export interface MatchCandidate {
  readonly slug: string;
  readonly score: number;
  /** How near the category is to the query in meaning (0 to 1), where the semantic stage ran. */
  readonly similarity?: number;
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

class RegistryScorer extends QueryReader implements Scorer {
  // Scratch space for rank(), reused by every query (ranking is synchronous).
  readonly #tally: Tally;

  constructor (ix: MatcherIndex, rules: MatcherRules, spelling: () => SpellingIndex) {
    super(ix, rules, spelling);
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

  /**
   * The query read in steps: its words as registry words (hits), the keywords it holds, each
   * category's evidence tallied from the hits (an inverted index), each touched category scored,
   * and the best few kept; then what the decision needs to know about the leader.
   */
  rank (prepared: PreparedQuery, capitals: readonly string[], askedBy = ''): Ranking {
    const [rules, tally] = [this.rules, this.#tally];
    this.asker = askedBy;
    const read = this.#hitsOf(prepared, capitals);
    // The words that say something: filler slips aside (counted before phrases' stop words are read as hits).
    const considered = read.hits.size + read.unknown + read.unnamed;
    // A keyword weighs as much against the other categories as it weighs for its own.
    const strongById = this.keywordStems(read.sequence, capitals);
    if (rules.stopWordsInPhrases && prepared.phraseWords.length > 0 && this.ix.softPhrases.size > 0) {
      this.#addSoftPhraseHits(prepared.phraseWords, read.hits, strongById);
    }
    const { touchedCount, total } = this.#tallied(read.hits, strongById);
    const query: QueryTally = { ...read, prepared, strongById, total, considered };
    const outOfScope = this.ix.exclusions.size === 0 ? NO_EXCLUSIONS : this.excluded(prepared.stems);
    // "go go" is one word too.
    const distinct = new Set(prepared.stems).size;
    const best: Ranked[] = [];
    // What a decline names: the best few by score, including categories the rules below keep
    // from answering (a word or two in common is too little to answer with, enough to suggest).
    const nearby: Ranked[] = [];
    let refused: ScopeRefusal | undefined;
    for (let t = 0; t < touchedCount; t++) {
      const id = tally.touched[t]!;
      const slug = this.ix.slugs[id]!;
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
      byTopic: namesLeader(first, second, read.hits, strongById, this.ix.keywords),
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
      const flags = Uint8Array.from(list, (id) => (this.ix.namedSoft[id]!.has(key) ? TERM_NAMES : 0));
      hits.set(key, {
        stem: key,
        term: { weight: rarity(this.ix.slugs.length, list.length), slugs: list.map((id) => this.ix.slugs[id]!), ids: list, fields: list.map(() => 1), flags },
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
    const [rules, tally] = [this.rules, this.#tally];
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
    const [rules, tally, { keywords, rarest }] = [this.rules, this.#tally, this.ix];
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

/** An unknown word that is no everyday word, of letters: a name, as far as the matcher can tell. */
function isNameLike (word: string): boolean {
  return word.length >= 3 && /[a-z]/.test(word) && !isEverydayWord(word);
}

/** Scores are reported to agents; three decimals also make ties exact. */
export function round (n: number): number {
  return Math.round(n * 1000) / 1000;
}
