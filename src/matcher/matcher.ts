import Fuse from 'fuse.js';
import type { Category, Registry } from '../registry/types.js';
import { contentTokens } from './normalize.js';

export const DEFAULT_THRESHOLD = 0.4;

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
      /** `empty-query`: nothing left after normalisation; `below-threshold`: no category scored enough. */
      readonly reason: 'empty-query' | 'below-threshold';
      readonly closest: MatchCandidate | null;
      readonly threshold: number;
    };

export interface Matcher {
  match(query: string, threshold?: number): MatchOutcome;
}

/** How far a misspelt query word may be from a registry word (fuse.js score, 0 = exact). */
const TYPO_TOLERANCE = 0.3;
/** Shorter words are too ambiguous to correct ("rust" vs "trust"). */
const MIN_TYPO_LENGTH = 5;
/** Words the registry has never seen weigh more than its rarest word: they say the query is about something else. */
const UNKNOWN_WORD_FACTOR = 1.25;

interface Term {
  readonly weight: number;
  readonly slugs: readonly string[];
}

/**
 * Builds the matcher for one registry, once. A category's score is the share of the query's
 * content words (weighted by how rare each word is across categories) that the category's
 * curated vocabulary contains; fuse.js corrects misspelt words against that vocabulary.
 */
export function buildMatcher(registry: Registry, defaultThreshold = DEFAULT_THRESHOLD): Matcher {
  const slugs = Object.keys(registry.categories).sort();
  const terms = indexTerms(registry, slugs);
  const unknownWeight = Math.log(1 + Math.max(slugs.length, 1)) * UNKNOWN_WORD_FACTOR;
  const vocabulary = new Fuse([...terms.keys()], {
    includeScore: true,
    threshold: TYPO_TOLERANCE,
    minMatchCharLength: 3,
  });

  function resolve(token: string): { term: Term; factor: number } | undefined {
    const exact = terms.get(token);
    if (exact !== undefined) return { term: exact, factor: 1 };
    if (token.length < MIN_TYPO_LENGTH) return undefined;
    const best = vocabulary.search(token, { limit: 1 })[0];
    if (best === undefined) return undefined;
    const term = terms.get(best.item);
    return term && { term, factor: 1 - (best.score ?? 1) };
  }

  function score(query: string): MatchCandidate[] {
    const scores = new Map<string, number>();
    let total = 0;
    for (const token of new Set(contentTokens(query))) {
      const hit = resolve(token);
      if (hit === undefined) {
        total += unknownWeight;
        continue;
      }
      total += hit.term.weight;
      for (const slug of hit.term.slugs) {
        scores.set(slug, (scores.get(slug) ?? 0) + hit.term.weight * hit.factor);
      }
    }
    if (total === 0) return [];
    return [...scores]
      .map(([slug, s]) => ({ slug, score: round(s / total) }))
      .sort((a, b) => b.score - a.score || (a.slug < b.slug ? -1 : 1));
  }

  return {
    match(query, threshold = defaultThreshold) {
      if (contentTokens(query).length === 0) {
        return { kind: 'no-match', reason: 'empty-query', closest: null, threshold };
      }
      const [best, second] = score(query);
      if (best === undefined || best.score === 0 || best.score < threshold) {
        return { kind: 'no-match', reason: 'below-threshold', closest: best ?? null, threshold };
      }
      const category = registry.categories[best.slug] as Category;
      return { kind: 'match', slug: best.slug, category, score: best.score, runnerUp: second ?? null };
    },
  };
}

function indexTerms(registry: Registry, slugs: readonly string[]): Map<string, Term> {
  const owners = new Map<string, string[]>();
  for (const slug of slugs) {
    const c = registry.categories[slug] as Category;
    const text = [slug.replace(/-/g, ' '), c.name, c.description, ...c.tags, ...c.keywords, ...c.queryPatterns];
    for (const token of new Set(contentTokens(text.join(' ')))) {
      const list = owners.get(token) ?? [];
      list.push(slug);
      owners.set(token, list);
    }
  }
  const terms = new Map<string, Term>();
  for (const [token, list] of owners) {
    terms.set(token, { weight: Math.log(1 + slugs.length / list.length), slugs: list });
  }
  return terms;
}

/** Scores are reported to agents; three decimals also make ties exact. */
function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
