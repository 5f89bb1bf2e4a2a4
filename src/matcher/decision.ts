import type { Category } from '../registry/types.js';
import type { MatcherIndex } from './index.js';
import type { PreparedQuery } from './query.js';
import type { MatcherRules } from './rules.js';
import type { MatchCandidate, Ranking, ScopeRefusal } from './scoring.js';

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
    /** The best candidates, best first (at most three, `closest` among them): what a decline names. */
    readonly candidates: readonly MatchCandidate[];
    /** The category the query was nearest to, kept out because its curator marked this as outside its scope. */
    readonly outOfScope?: ScopeRefusal;
  }
  | {
    readonly kind: 'no-match';
    /** The best two scored within the margin of each other: `contender` is the second. */
    readonly reason: 'too-close';
    readonly closest: MatchCandidate;
    readonly contender: MatchCandidate;
    readonly threshold: number;
    readonly candidates: readonly MatchCandidate[];
  };

const NO_CANDIDATES: readonly MatchCandidate[] = Object.freeze([]);

/** What the decision starts from before any ranking: the query asks for a category by its slug or name, or is empty or too long. */
export function decideBeforeRanking (ix: MatcherIndex, prepared: PreparedQuery, threshold: number, rules: MatcherRules): MatchOutcome | undefined {
  if (prepared.tooLong) return { kind: 'no-match', reason: 'too-long', closest: null, threshold, candidates: NO_CANDIDATES };
  // Only stop words: nothing to match, unless they may make a curator's phrase ("make a will").
  if (prepared.words.length === 0 && (prepared.phraseWords.length === 0 || !rules.stopWordsInPhrases)) return { kind: 'no-match', reason: 'empty-query', closest: null, threshold, candidates: NO_CANDIDATES };
  // An agent that re-asks with the slug a decline named (or the category's name) gets that
  // category: the decline told it to.
  const asked = ix.byTitle.get(prepared.text);
  if (asked === undefined) return undefined;
  const slug = ix.slugs[asked]!;
  return { kind: 'match', slug, category: ix.registry.categories[slug] as Category, score: 1, runnerUp: null };
}

/** The outcome from a ranking: an answer, or a decline that says why and names the candidates. */
export function decide (ix: MatcherIndex, ranking: Ranking, prepared: PreparedQuery, threshold: number, rules: MatcherRules): MatchOutcome {
  const { byTopic, vague, leaderWords, declineCandidates: candidates } = ranking;
  const [best, second] = ranking.candidates;
  // Only stop words, and none of them made a curator's phrase: nothing to match after all.
  if (prepared.words.length === 0 && best === undefined) return { kind: 'no-match', reason: 'empty-query', closest: null, threshold, candidates: NO_CANDIDATES };
  // A query of one everyday word and nothing else says too little to hand over three sources
  // with confidence ("security", "keys", "rust", or "kyes" read as "keys"); a name ("zigbee",
  // "bitcoind", "nostr") is specific enough alone, and so is "learn rust". Whether the query is
  // one word as typed is not part of the remembered ranking's key, so it is checked here.
  if (rules.oneEverydayWordIsVague && prepared.oneWord && vague) {
    return { kind: 'no-match', reason: 'too-vague', closest: best ?? null, threshold, candidates };
  }
  // Scores have three decimals: the lowered threshold is rounded to them too.
  const discount = leaderWords >= rules.broadEvidenceWords
    ? Math.min(rules.broadEvidenceMaxDiscount, rules.broadEvidenceDiscount + rules.broadEvidencePerWord * (leaderWords - rules.broadEvidenceWords))
    : 0;
  const needed = discount > 0 ? Math.max(0, Math.round((threshold - discount) * 1000) / 1000) : threshold;
  if (best === undefined || best.score === 0 || best.score < needed) {
    const refused = ranking.scopeRefusal === undefined ? {} : { outOfScope: ranking.scopeRefusal };
    return { kind: 'no-match', reason: 'below-threshold', closest: best ?? null, threshold: needed, candidates, ...refused };
  }
  // A leader the query names (a keyword, a word of its name) over a runner-up it does not name
  // wins by topic, however close the scores. Scores have three decimals: compared in thousandths.
  if (second !== undefined && Math.round((best.score - second.score) * 1000) < Math.round(rules.minMargin * 1000) && !(rules.namedLeaderWins && byTopic)) {
    return { kind: 'no-match', reason: 'too-close', closest: best, contender: second, threshold, candidates };
  }
  return { kind: 'match', slug: best.slug, category: ix.registry.categories[best.slug] as Category, score: best.score, runnerUp: second ?? null };
}
