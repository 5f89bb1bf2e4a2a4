import { readFileSync } from 'node:fs';
import t from 'tap';
import { loadWordVectors } from '../../../src/semantic/word-vectors.js';
import { buildMatcher } from '../../../src/matcher/matcher.js';
import { loadRegistry } from '../../../src/registry/load.js';
import { evaluate, evaluateRegistry, pooledReport, type LabelledQuery } from '../../../scripts/lib/evaluate.js';
import { SHIPPED_REGISTRY, fixture } from '../../helpers/build.js';

const { queries } = JSON.parse(readFileSync(fixture('queries.json'), 'utf8')) as { queries: LabelledQuery[] };
const matcher = buildMatcher(await loadRegistry(SHIPPED_REGISTRY));

t.test('the evaluation set is what the issue asks for', async (t) => {
  const onTopic = queries.filter((q) => q.expect !== null);
  t.ok(queries.length >= 300, `${queries.length} queries`);
  t.ok(queries.filter((q) => q.kind === 'off-topic' || q.kind === 'near-miss').length >= 80, 'at least 80 that must not match');
  const perCategory = new Map<string, number>();
  for (const q of onTopic) perCategory.set(q.expect!, (perCategory.get(q.expect!) ?? 0) + 1);
  t.equal(perCategory.size, 10);
  for (const [slug, n] of perCategory) t.ok(n >= 20, `${slug}: ${n} queries`);
  const holdout = queries.filter((q) => q.split === 'holdout').length;
  t.ok(Math.abs(holdout / queries.length - 1 / 3) < 0.02, `one third held out (${holdout})`);
  t.ok(queries.some((q) => q.query.length >= 2000), 'a 2,000-character query');
  t.ok(queries.some((q) => q.query.trim() === ''), 'empty and whitespace-only queries');
});

// Floors at the level reached, so that a change that loses a labelled query must earn it back.
// The held-out third of queries.json is at 97.3% (75 of 77 on topic, 34 of 35 declined) after the
// rounds of 2026-11-26. The pooled floors cover every set used for tuning: queries.json, the fresh
// set and the nine blind sets, each read only after its first measurement (reported in the
// README). The next measurement needs a new blind set.
const HELD_OUT_FLOOR = { overall: 0.97, top1: 0.97, rejections: 0.97 };
// Issue 23 (2026-11-26) rebuilt the matcher for registries written by curators new to the tool
// (Porter stemming, transaction words, short queries whose words the category does not explain):
// on these sets it cost about a point each way (0.962 to 0.953 on topic, 0.965 to 0.952 declined),
// reported in the README; the floors are at the level reached.
// The registry's cleanup (2026-11-26) removed the scope entries that existed to decline queries of
// these sets: declined fell from 0.952 to 0.929 here (0.984 on the unread fifteenth set).
const POOLED_FLOOR = { top1: 0.95, rejections: 0.92 };
const TUNING_SETS = [
  'queries.json',
  'queries-fresh.json',
  'queries-untouched.json',
  'queries-blind-2.json',
  'queries-blind-3.json',
  'queries-blind-4.json',
  'queries-blind-5.json',
  'queries-blind-6.json',
  'queries-blind-7.json',
  'queries-blind-8.json',
  'queries-blind-9.json',
];

t.test(`held-out accuracy stays at or above ${HELD_OUT_FLOOR.overall}`, async (t) => {
  const report = evaluate(matcher, queries.filter((q) => q.split === 'holdout'));
  t.ok(report.overall >= HELD_OUT_FLOOR.overall, `overall ${report.overall.toFixed(3)}`, { misses: report.misses });
  t.ok(report.top1 >= HELD_OUT_FLOOR.top1, `top-1 on-topic ${report.top1.toFixed(3)} (floor ${HELD_OUT_FLOOR.top1})`);
  t.ok(report.rejectionRate >= HELD_OUT_FLOOR.rejections, `correct rejections ${report.rejectionRate.toFixed(3)} (floor ${HELD_OUT_FLOOR.rejections})`);
});

t.test('every set used for tuning, pooled, stays at its floors', async (t) => {
  const pooled = TUNING_SETS.flatMap((name) => (JSON.parse(readFileSync(fixture(name), 'utf8')) as { queries: LabelledQuery[] }).queries);
  const report = evaluate(matcher, pooled);
  t.ok(report.top1 >= POOLED_FLOOR.top1, `top-1 on-topic ${report.top1.toFixed(3)} (${report.onTopic.correct}/${report.onTopic.total})`, { misses: report.misses });
  t.ok(report.rejectionRate >= POOLED_FLOOR.rejections, `declined ${report.rejectionRate.toFixed(3)} (${report.rejections.correct}/${report.rejections.total})`);
});

t.test('degenerate input never throws and never matches', async (t) => {
  for (const q of queries.filter((x) => x.kind === 'degenerate')) {
    t.equal(matcher.match(q.query).kind, 'no-match', JSON.stringify(q.query.slice(0, 30)));
  }
});

// The thirty-five registries written by curators new to the tool, all read by now (each blind one
// measured once first, reported in docs/evaluation.md): pooled, with the semantic stage as the
// server runs it, they stay at the level reached on 2026-11-28, sixth session (first answers 0.761,
// declined 0.959, confident wrong 2.14%, within two calls 0.968; without the semantic stage within
// two calls is about 0.95, so the floor holds it). Seventh session (issue 33, item 3): a decline
// names a category only when it could be meant (score 0.1 or similarity 0.65) and never one out of
// scope: within two calls 0.968 to 0.965 (0.967 without the score floor), the rest unchanged.
const CURATOR_REGISTRIES_FLOOR = { firstAnswer: 0.75, declined: 0.955, confidentWrong: 0.022, withinTwoCalls: 0.964 };
const meaning = loadWordVectors();

t.test('the registries of curators new to the tool, pooled, stay at their floors', async (t) => {
  const folders = ['tune-a', 'tune-b', 'tune-c', 'tune-d', ...[...'efghijklmnopqrstuvwxyz', 'aa', 'ab', 'ad', 'ae', 'af', 'ag', 'ah', 'ai', 'aj'].map((letter) => `blind-${letter}`)];
  const parts = [];
  for (const folder of folders) {
    const queries = (JSON.parse(readFileSync(fixture(`registries/${folder}/queries.json`), 'utf8')) as { queries: LabelledQuery[] }).queries;
    parts.push({ report: evaluateRegistry(buildMatcher(await loadRegistry(fixture(`registries/${folder}/registry.json`)), undefined, { meaning }), queries), queries });
  }
  const pooled = pooledReport(parts);
  t.ok(pooled.firstAnswer >= CURATOR_REGISTRIES_FLOOR.firstAnswer, `first answer ${pooled.firstAnswer.toFixed(3)}`);
  t.ok(pooled.declined >= CURATOR_REGISTRIES_FLOOR.declined, `declined ${pooled.declined.toFixed(3)}`);
  t.ok(pooled.confidentWrong <= CURATOR_REGISTRIES_FLOOR.confidentWrong, `confident wrong ${(pooled.confidentWrong * 100).toFixed(2)}%`);
  t.ok(pooled.withinTwoCalls >= CURATOR_REGISTRIES_FLOOR.withinTwoCalls, `right within two calls ${pooled.withinTwoCalls.toFixed(3)}`);
});

t.test('evaluateRegistry measures what issue 23 defines: first answers, declines, confident wrong answers, right within two calls', async (t) => {
  const closeCall = 'secure my home server';
  const outcome = matcher.match(closeCall);
  if (outcome.kind !== 'no-match' || outcome.reason !== 'too-close') return t.fail(`expected too-close, got ${JSON.stringify(outcome)}`);
  const set = [
    { query: 'learn rust programming', expect: 'rust-learning', kind: 'plain' },
    // Declined, but the decline names the right category: right within two calls, not first.
    { query: closeCall, expect: outcome.contender.slug, kind: 'paraphrase' },
    // Declined, naming nothing right.
    { query: 'xyzzy plugh', expect: 'rust-learning', kind: 'short' },
    // Answered where none was right: a confident wrong answer; and a right decline.
    { query: 'how do I run a bitcoin full node', expect: null, kind: 'near-miss' },
    { query: 'best lasagne recipe', expect: null, kind: 'off-topic' },
  ];
  const report = evaluateRegistry(matcher, set);
  t.equal(report.queries, 5);
  t.equal(report.firstAnswer, 1 / 3, 'one of three on-topic answered right at once');
  t.equal(report.withinTwoCalls, 2 / 3, 'and one more declined naming the right category');
  t.equal(report.declined, 1 / 2, 'one of two that must not match was declined');
  t.equal(report.confidentWrong, 1 / 5, 'one confident wrong answer of five queries');
  t.same(report.byKind['near-miss'], { total: 1, correct: 0 });
  t.same(report.byKind.plain, { total: 1, correct: 1 });
});
