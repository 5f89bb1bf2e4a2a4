import { BoundedMemo } from '../util/bounded-memo.js';
import { runAtOnce, runInSlices } from '../util/slices.js';
import type { Registry } from '../registry/types.js';
import { meaningIndexSteps, type MeaningIndex } from '../semantic/meaning-index.js';
import type { WordVectors } from '../semantic/word-vectors.js';
import { declineCandidates } from './candidates.js';
export { byWeight } from './candidates.js';
import { decide, decideBeforeRanking, type MatchOutcome } from './decision.js';
import { explainOutcome, type Explanation } from './explanation.js';
import { IndexTooLarge, indexSteps, type IndexLimits, type MatcherIndex, type ReadingCache } from './index.js';
import { contentWords } from './normalize.js';
import { prepareQuery, type PreparedQuery } from './query.js';
import { RULES, type MatcherRules } from './rules.js';
import { createScorer, type MatchCandidate, type Ranking } from './scoring.js';
import { editDistanceIndexSteps, SpellingBucketFull, type SpellingIndex } from './spelling.js';

// The matcher in small files: index.ts (what a registry gives it), query.ts (a query normalised),
// reading.ts (its words as the registry's words), scoring.ts (categories ranked), decision.ts
// (answer or decline), explanation.ts (why, for curators), rules.ts (every weight and rule). This
// file puts them together.
export { IndexTooLarge, PEER_INDEX_LIMITS, type IndexLimits, type ReadingCache } from './index.js';
export { MAX_CONTENT_WORDS, MAX_NORMALIZED_LENGTH, prepareQuery, type PreparedQuery } from './query.js';
export { RULES, RULE_SWITCHES, type MatcherRules } from './rules.js';
export { MAX_PHRASE_CHECKS, MAX_REMEMBERED_WORDS, MAX_SCOPE_CHECKS, type MatchCandidate } from './scoring.js';
export type { MatchOutcome } from './decision.js';
export type { Explanation } from './explanation.js';

export const DEFAULT_THRESHOLD = RULES.threshold;
export const MIN_MARGIN = RULES.minMargin;

/** How many rankings (by normalised query) the matcher remembers. */
export const MAX_REMEMBERED_RANKINGS = 5_000;

export interface Matcher {
  /** `prepared`: the query already normalised (one query, many registries: one key string shared by all). */
  /**
   * `asker`: who asks (a client key), if anyone: rankings are remembered per asker, so that a
   * remembered ranking never tells one client by its speed what another asked.
   */
  match(query: string, threshold?: number, prepared?: PreparedQuery, asker?: string): MatchOutcome;
  /** What decided a query, for curators (`check --query`): the outcome and how each word counted. */
  explain(query: string, threshold?: number): Explanation;
  /** Every spelling this registry uses, in its order: what a shared spelling index is built from. */
  vocabulary(): Iterable<string>;
  /**
   * The query's words (as normalised) whose stems the category `slug` never uses: what a near-miss
   * lacked. Without a slug, those no category uses: the only words a typo correction may change.
   */
  unknownWords(prepared: PreparedQuery, slug?: string): string[];
  /** Reads typo candidates from `index` (a shared one that answers as its own), or from its own again when undefined. */
  useSpelling(index: SpellingIndex | undefined): void;
  /** How many rankings and word corrections are remembered now (each bounded). */
  remembered(): { readonly rankings: number; readonly corrections: number };
}

export interface MatcherOptions {
  /** Refuse (IndexTooLarge) a registry beyond these; none by default (our own registry). */
  readonly limits?: IndexLimits;
  /** The weights and rules (RULES by default): what the evaluation's ablation changes. */
  readonly rules?: MatcherRules;
  /** The semantic stage's word vectors: declines also name the categories nearest in meaning. None: words alone. */
  readonly meaning?: WordVectors | undefined;
  /** Categories' readings to reuse and keep (see ReadingCache): for a caller rebuilding one registry with one category edited, many times. */
  readonly readings?: ReadingCache;
  /** The registry's index built already, with its vocabulary in indexSteps' order (EditableIndex): used as it is. */
  readonly prebuilt?: { readonly index: MatcherIndex; readonly vocabulary: readonly string[] };
}

/** Builds the matcher for one registry, once. */
export function buildMatcher (registry: Registry, defaultThreshold = DEFAULT_THRESHOLD, options: MatcherOptions = {}): Matcher {
  return runAtOnce(matcherSteps(registry, defaultThreshold, options));
}

/**
 * buildMatcher in slices of about 8 ms of work, each followed by `pause` (a turn of the event
 * loop): a peer's registry near the limits takes a few hundred milliseconds to index, which must
 * not be taken from requests in one piece.
 */
export function buildMatcherInSlices (
  registry: Registry,
  defaultThreshold: number,
  options: MatcherOptions & { readonly pause: () => Promise<unknown> }
): Promise<Matcher> {
  return runInSlices(matcherSteps(registry, defaultThreshold, options), options.pause);
}

function * matcherSteps (registry: Registry, defaultThreshold: number, options: MatcherOptions): Generator<void, Matcher> {
  const rules = options.rules ?? RULES;
  const { limits } = options;
  const ix = options.prebuilt?.index ?? (yield * indexSteps(registry, rules, limits, options.readings));
  let own: SpellingIndex;
  try {
    const vocabulary = options.prebuilt?.vocabulary ?? ix.spellings.keys();
    own = yield * editDistanceIndexSteps(vocabulary, limits === undefined ? {} : { maxBucket: limits.wordsPerSpellingBucket });
  } catch (err) {
    throw err instanceof SpellingBucketFull ? new IndexTooLarge(err.message) : err;
  }
  // A federation may hand this registry a shared index that answers as its own would (see
  // sharedSpellingSteps); its own index serves until then, and whenever none is given.
  let shared: SpellingIndex | undefined;
  const scorer = createScorer(ix, rules, () => shared ?? own);
  // Agents ask the same things in different case and punctuation: rankings are remembered by
  // normalised query. Bounded: emptied when full, so memory stays flat under any traffic.
  const rankings = new BoundedMemo<string, Ranking>(MAX_REMEMBERED_RANKINGS);
  const meaning: MeaningIndex | undefined = options.meaning === undefined ? undefined : yield * meaningIndexSteps(registry, options.meaning, contentWords);
  // What declines name, by the same key as the ranking their lexical candidates come from.
  const named = new BoundedMemo<string, readonly MatchCandidate[]>(MAX_REMEMBERED_RANKINGS);

  return {
    match (query, threshold = defaultThreshold, prepared = prepareQuery(query), asker = '') {
      const early = decideBeforeRanking(ix, prepared, threshold, rules);
      if (early !== undefined) return early;
      // Capitals this registry's curator writes too change the ranking: they are part of what it is
      // remembered by. Others are not, so "LEARN RUST" is remembered as "learn rust". So are the
      // intent words ("near me" leaves only "near" among the content words), and the words that
      // may complete a curator's phrase ("first aid" is "aid" among the content words).
      const capitals = scorer.ownCapitals(prepared);
      const remembered = `${asker}\u0000${prepared.key}\u0000${capitals.join(' ')}\u0000${prepared.intents.join(' ')}\u0000${prepared.phraseWords.join(' ')}\u0000${prepared.countries.join(' ')}`;
      const ranking = rankings.get(remembered, () => Object.freeze(scorer.rank(prepared, capitals, asker)));
      const outcome = decide(ix, ranking, prepared, threshold, rules);
      if (outcome.kind === 'match' || outcome.reason === 'empty-query' || outcome.reason === 'too-long') return outcome;
      // A category whose curator put the question out of its scope is never named, however near in meaning.
      const candidates = named.get(remembered, () => declineCandidates(outcome.candidates, prepared, rules, meaning, scorer.excluded(prepared.stems)));
      return { ...outcome, candidates };
    },
    remembered: () => ({ rankings: rankings.size, corrections: scorer.remembered() }),
    explain (query, threshold = defaultThreshold) {
      const prepared = prepareQuery(query);
      return explainOutcome(ix, scorer, rules, prepared, this.match(query, threshold, prepared));
    },
    vocabulary: () => ix.spellings.keys(),
    unknownWords (prepared, slug) {
      if (slug === undefined) return prepared.words.filter((_, i) => !ix.terms.has(prepared.stems[i]!));
      const id = ix.idOfSlug.get(slug);
      if (id === undefined) return [];
      return prepared.words.filter((_, i) => !(ix.terms.get(prepared.stems[i]!)?.ids.includes(id) ?? false));
    },
    useSpelling (index) {
      shared = index;
    },
  };
}
