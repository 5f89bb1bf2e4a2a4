import type { Matcher } from '../../src/matcher/matcher.js';

export interface LabelledQuery {
  readonly query: string;
  /** The slug that must be found, or null when nothing may match. */
  readonly expect: string | null;
  readonly kind: string;
  readonly split: 'tune' | 'holdout';
}

export interface Miss {
  readonly query: string;
  readonly kind: string;
  readonly expected: string | null;
  readonly got: string | null;
  readonly score: number | null;
}

export interface Report {
  readonly total: number;
  readonly onTopic: { readonly total: number; readonly correct: number };
  readonly rejections: { readonly total: number; readonly correct: number };
  readonly overall: number;
  readonly top1: number;
  readonly rejectionRate: number;
  readonly byKind: Readonly<Record<string, { total: number; correct: number }>>;
  readonly misses: readonly Miss[];
  /** Answers given (matches), right and wrong, by their margin over the runner-up. */
  readonly margins: readonly MarginBucket[];
}

export interface MarginBucket {
  readonly below: number;
  right: number;
  wrong: number;
}

/** Margin buckets' upper bounds: a match's score less the runner-up's (its whole score when alone). */
const MARGIN_BOUNDS = [0.05, 0.1, 0.2, 0.3, Infinity];

/** Scores a matcher against labelled queries: a match must name the expected slug; a null expectation must get no match. */
export function evaluate(matcher: Matcher, queries: readonly LabelledQuery[]): Report {
  const onTopic = { total: 0, correct: 0 };
  const rejections = { total: 0, correct: 0 };
  const byKind: Record<string, { total: number; correct: number }> = {};
  const misses: Miss[] = [];
  const margins: MarginBucket[] = MARGIN_BOUNDS.map((below) => ({ below, right: 0, wrong: 0 }));
  for (const q of queries) {
    const outcome = matcher.match(q.query);
    const got = outcome.kind === 'match' ? outcome.slug : null;
    const score = outcome.kind === 'match' ? outcome.score : (outcome.closest?.score ?? null);
    const ok = got === q.expect;
    if (outcome.kind === 'match') {
      const margin = outcome.score - (outcome.runnerUp?.score ?? 0);
      const bucket = margins.find((b) => margin < b.below)!;
      if (ok) bucket.right++;
      else bucket.wrong++;
    }
    const bucket = q.expect === null ? rejections : onTopic;
    bucket.total++;
    const kind = (byKind[q.kind] ??= { total: 0, correct: 0 });
    kind.total++;
    if (ok) {
      bucket.correct++;
      kind.correct++;
    } else {
      misses.push({ query: q.query, kind: q.kind, expected: q.expect, got, score });
    }
  }
  const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
  return {
    total: queries.length,
    onTopic,
    rejections,
    overall: ratio(onTopic.correct + rejections.correct, queries.length),
    top1: ratio(onTopic.correct, onTopic.total),
    rejectionRate: ratio(rejections.correct, rejections.total),
    byKind,
    misses,
    margins,
  };
}
