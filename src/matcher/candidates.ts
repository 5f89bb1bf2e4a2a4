import type { MeaningIndex } from '../semantic/meaning-index.js';
import type { PreparedQuery } from './query.js';
import type { MatcherRules } from './rules.js';
import type { MatchCandidate } from './scoring.js';

/** A candidate's weight: its score plus its similarity in meaning, both 0 to 1. */
export function candidateWeight (c: MatchCandidate): number {
  return c.score + (c.similarity ?? 0);
}

/** Heaviest first; equal ones by slug, so the order never depends on how they were found. */
export function byWeight (a: MatchCandidate, b: MatchCandidate): number {
  return candidateWeight(b) - candidateWeight(a) || (a.slug < b.slug ? -1 : 1);
}

/**
 * What a decline names: the categories the words point to, and (with the semantic stage) the
 * ones nearest in meaning, which words miss when a question is put in the asker's own words.
 * Each is ranked by its score plus its similarity (both 0 to 1); one that shares a word or two
 * with the question and nothing of its meaning is left out (see candidateScoreFloor).
 */
export function declineCandidates (
  lexical: readonly MatchCandidate[],
  prepared: PreparedQuery,
  rules: MatcherRules,
  meaning: MeaningIndex | undefined,
  outOfScope: ReadonlyMap<string, unknown> = new Map()
): readonly MatchCandidate[] {
  const pool = new Map(lexical.map((c) => [c.slug, c]));
  const query = meaning?.vectorOf(prepared.words);
  if (meaning !== undefined && query !== undefined) {
    for (const c of lexical) pool.set(c.slug, { ...c, similarity: meaning.similarity(query, c.slug) });
    for (const { slug, similarity } of meaning.nearest(query, rules.nearestInMeaning)) {
      if (!pool.has(slug) && !outOfScope.has(slug) && similarity >= rules.meaningFloor) pool.set(slug, { slug, score: 0, similarity });
    }
  }
  // Named only when it could be meant: its words come part of the way to an answer, or its meaning is near.
  const couldBeMeant = (c: MatchCandidate) => c.score >= rules.candidateScoreFloor || (c.similarity ?? 0) >= rules.meaningFloor;
  const named = [...pool.values()].filter(couldBeMeant).sort(byWeight).slice(0, rules.declineCandidates);
  return Object.freeze(named.map((c) => Object.freeze(c)));
}
