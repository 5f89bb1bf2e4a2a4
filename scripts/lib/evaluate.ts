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
export function evaluate (matcher: Matcher, queries: readonly LabelledQuery[]): Report {
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

/** What issue 23 measures on a registry and its labelled set. */
export interface RegistryReport {
  readonly queries: number;
  /** On-topic queries answered with the right category on the first call. */
  readonly firstAnswer: number;
  /** Queries labelled "none" that were declined. */
  readonly declined: number;
  /** Queries (of all) answered with a category where another or none was right. */
  readonly confidentWrong: number;
  /** On-topic queries answered right, or declined naming the right category among its candidates. */
  readonly withinTwoCalls: number;
  readonly byKind: Readonly<Record<string, { total: number; correct: number }>>;
}

/** The candidates a decline names, as get_sources names them. */
function namedCandidates (outcome: ReturnType<Matcher['match']>): string[] {
  if (outcome.kind === 'match') return [];
  return outcome.candidates.map((c) => c.slug);
}

/**
 * `sameTopic`: whether an answer or candidate `got` serves a question labelled `expected`; by
 * default only the labelled category does (see --same-topic in scripts/eval.ts for another).
 */
export function evaluateRegistry (
  matcher: Matcher,
  queries: readonly { query: string; expect: string | null; kind: string }[],
  sameTopic: (got: string, expected: string) => boolean = (got, expected) => got === expected
): RegistryReport {
  let onTopic = 0;
  let first = 0;
  let nulls = 0;
  let declined = 0;
  let wrong = 0;
  let within = 0;
  const byKind: Record<string, { total: number; correct: number }> = {};
  for (const q of queries) {
    const outcome = matcher.match(q.query);
    const answered = outcome.kind === 'match' ? outcome.slug : null;
    // A category that serves the question counts as the labelled one.
    const got = answered !== null && q.expect !== null && sameTopic(answered, q.expect) ? q.expect : answered;
    const kind = (byKind[q.kind] ??= { total: 0, correct: 0 });
    kind.total++;
    if (got === q.expect) kind.correct++;
    if (got !== null && got !== q.expect) wrong++;
    if (q.expect === null) {
      nulls++;
      if (got === null) declined++;
      continue;
    }
    onTopic++;
    if (got === q.expect) first++;
    const expected = q.expect;
    if (got === expected || (got === null && namedCandidates(outcome).some((slug) => sameTopic(slug, expected)))) within++;
  }
  const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
  return {
    queries: queries.length,
    firstAnswer: ratio(first, onTopic),
    declined: ratio(declined, nulls),
    confidentWrong: ratio(wrong, queries.length),
    withinTwoCalls: ratio(within, onTopic),
    byKind,
  };
}

/** Issue 23's measures over several registries' queries taken together (each report with the set it was measured on). */
export function pooledReport (parts: readonly { readonly report: RegistryReport; readonly queries: readonly { expect: string | null }[] }[]): {
  firstAnswer: number;
  declined: number;
  confidentWrong: number;
  withinTwoCalls: number;
} {
  const all = { first: 0, onTopic: 0, declined: 0, nulls: 0, wrong: 0, queries: 0, within: 0 };
  for (const { report: r, queries } of parts) {
    const onTopic = queries.filter((q) => q.expect !== null).length;
    all.first += r.firstAnswer * onTopic;
    all.within += r.withinTwoCalls * onTopic;
    all.onTopic += onTopic;
    all.declined += r.declined * (queries.length - onTopic);
    all.nulls += queries.length - onTopic;
    all.wrong += r.confidentWrong * queries.length;
    all.queries += queries.length;
  }
  return {
    firstAnswer: all.first / all.onTopic,
    declined: all.declined / all.nulls,
    confidentWrong: all.wrong / all.queries,
    withinTwoCalls: all.within / all.onTopic,
  };
}
