import { readFileSync } from 'node:fs';
import t from 'tap';
import { buildMatcher } from '../../../src/matcher/matcher.js';
import { loadRegistry } from '../../../src/registry/load.js';
import { evaluate, type LabelledQuery } from '../../../scripts/lib/evaluate.js';
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

// Reached when this test was written: 97.3% overall (109 of 112), 97.5% top-1, 96.9% rejections.
// (The first look at this split, before the near-miss guard was finished, gave 93.8%; no registry
// pattern or keyword was taken from it.) The floor is that level: a change that loses a held-out
// query must earn it back.
const HELD_OUT_FLOOR = 0.97;

t.test(`held-out accuracy stays at or above ${HELD_OUT_FLOOR}`, async (t) => {
  const report = evaluate(matcher, queries.filter((q) => q.split === 'holdout'));
  t.ok(report.overall >= HELD_OUT_FLOOR, `overall ${report.overall.toFixed(3)}`, { misses: report.misses });
  t.ok(report.top1 >= 0.93, `top-1 on-topic ${report.top1.toFixed(3)} (target 0.93)`);
  t.ok(report.rejectionRate >= 0.95, `correct rejections ${report.rejectionRate.toFixed(3)} (target 0.95)`);
});

t.test('degenerate input never throws and never matches', async (t) => {
  for (const q of queries.filter((x) => x.kind === 'degenerate')) {
    t.equal(matcher.match(q.query).kind, 'no-match', JSON.stringify(q.query.slice(0, 30)));
  }
});
