/**
 * npm run eval: match quality on the labelled queries (tune and held-out splits), every miss,
 * and the matcher's speed on the shipped registry and on a generated one of 1,000 categories.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildMatcher, RULES, RULE_SWITCHES, type Matcher, type MatcherRules } from '../src/matcher/matcher.js';
import { projectRoot } from '../src/project.js';
import { meaningFromEnv, rulesFromEnv } from '../src/cli/io.js';
import { loadRegistry, registryFromBytes } from '../src/registry/load.js';
import type { Category, Registry } from '../src/registry/types.js';
import { evaluate, evaluateRegistry, pooledReport, type LabelledQuery, type Report } from './lib/evaluate.js';
import { generateRegistry } from './lib/generated-registry.js';

const root = projectRoot();
// As the server runs: with the semantic stage unless SEMANTIC_STAGE=off.
const meaning = meaningFromEnv();

/** One folder of test/fixtures/registries: its registry and its labelled queries. */
function readFolder (dir: string, name: string): { registry: Registry; queries: LabelledQuery[] } {
  const check = registryFromBytes(readFileSync(join(dir, name, 'registry.json')), rulesFromEnv());
  if (!check.ok) throw new Error(`${name}: ${check.problems.join('; ')}`);
  const { registry } = check;
  // One set (queries.json), or a month's traffic and a held-out set (traffic.json, held-out.json), pooled.
  const sets = ['queries.json', 'traffic.json', 'held-out.json'].filter((f) => existsSync(join(dir, name, f)));
  const queries = sets.flatMap((f) => (JSON.parse(readFileSync(join(dir, name, f), 'utf8')) as { queries: LabelledQuery[] }).queries);
  return { registry, queries };
}
// `npm run eval -- --registry FILE --queries FILE`: a curator scores a candidate registry on any
// labelled set ({"queries": [{"query", "expect": slug or null, "kind"}]}) before signing it.
const option = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const registryFile = option('registry') ?? join(root, 'registry.json');
const queryFile = option('queries');
const { queries } = JSON.parse(readFileSync(queryFile ?? join(root, 'test/fixtures/queries.json'), 'utf8')) as { queries: LabelledQuery[] };
const registry = await loadRegistry(registryFile, rulesFromEnv());
const matcher = buildMatcher(registry, undefined, { meaning });
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function print (name: string, r: Report): void {
  console.log(`\n== ${name}: ${r.total} queries (${r.onTopic.total} on-topic, ${r.rejections.total} must not match)`);
  console.log(`top-1 accuracy on-topic  ${pct(r.top1)}  (${r.onTopic.correct}/${r.onTopic.total})`);
  console.log(`correct rejections       ${pct(r.rejectionRate)}  (${r.rejections.correct}/${r.rejections.total})`);
  console.log(`overall accuracy         ${pct(r.overall)}`);
  console.log('by kind: ' + Object.entries(r.byKind).map(([k, v]) => `${k} ${v.correct}/${v.total}`).join(', '));
  let from = 0;
  const margins = r.margins.map((b) => {
    const range = b.below === Infinity ? `>= ${from.toFixed(2)}` : `${from.toFixed(2)}-${b.below.toFixed(2)}`;
    from = b.below;
    return `${range}: ${b.right} right, ${b.wrong} wrong`;
  });
  console.log(`answers by margin over the runner-up: ${margins.join('; ')}`);
  for (const m of r.misses) {
    const score = m.score === null ? '-' : m.score.toFixed(3);
    console.log(`  miss [${m.kind}] expected ${m.expected ?? 'no match'}, got ${m.got ?? 'no match'} (${score}): ${JSON.stringify(m.query.length > 100 ? `${m.query.slice(0, 97)}...` : m.query)}`);
  }
}

// `npm run eval -- --registries test/fixtures/registries --only tune [--ablation]`: issue 23's
// measures on each registry written by a curator new to the tool, with its own labelled set, pooled;
// with --ablation, the same with each rule of src/matcher/rules.ts turned off in turn. The blind-* folders
// are measured only with --only blind, once, with the matcher as it then is (see their README).
const registriesDir = option('registries');
if (registriesDir !== undefined) {
  const only = option('only') ?? 'tune';
  const { readdirSync } = await import('node:fs');
  // `--only blind` takes every blind-* folder; `--only blind-i,blind-j` those folders alone.
  const wanted = only.split(',');
  const folders = readdirSync(registriesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && wanted.some((w) => d.name === w || d.name.startsWith(`${w}-`)))
    .map((d) => d.name)
    .sort();
  const pct2 = (x: number) => x.toFixed(2);
  // `--together`: the folders served as one registry (each slug prefixed with its folder), each
  // folder's own queries asked of it: what a network of curators looks like to one matcher.
  if (process.argv.includes('--together')) {
    const sets = folders.map((name) => ({ name, ...readFolder(registriesDir, name) }));
    const categories: Record<string, Category> = {};
    for (const { name, registry } of sets) for (const [slug, c] of Object.entries(registry.categories)) categories[`${name}-${slug}`] = c;
    const together: Registry = { ...sets[0]!.registry, categories };
    const queriesTogether = sets.flatMap(({ name, queries }) => queries.map((q) => ({ ...q, expect: q.expect === null ? null : `${name}-${q.expect}` })));
    const network = buildMatcher(together, undefined, { meaning });
    const onTopicTogether = queriesTogether.filter((q) => q.expect !== null);
    const r = evaluateRegistry(network, onTopicTogether);
    console.log(`# ${folders.length} registries served as one: ${Object.keys(categories).length} categories, ${queriesTogether.length} queries (${new Date().toISOString().slice(0, 10)}, Node ${process.version})`);
    // A question off one curator's topics may be on another's: only the on-topic questions are measured.
    console.log(`on-topic questions: first answer ${pct2(r.firstAnswer)}, right within two calls ${pct2(r.withinTwoCalls)}`);
    // `--same-topic FILE` ({"groups": [[id, ...], ...]}, ids as `<folder>-<slug>`): two curators'
    // categories a judge found to be one topic (test/fixtures/registries/same-topic.json, judged
    // from the cards alone) serve each other's questions, which of them a question "belongs" to
    // being no fault of the matcher. Measured too, beside the strict figures above.
    const sameTopicFile = option('same-topic');
    if (sameTopicFile !== undefined) {
      const groups = (JSON.parse(readFileSync(sameTopicFile, 'utf8')) as { groups: string[][] }).groups;
      const groupOf = new Map(groups.flatMap((g, i) => g.map((id) => [id, i] as const)));
      const sameTopic = (got: string, expected: string) => got === expected || (groupOf.has(got) && groupOf.get(got) === groupOf.get(expected));
      const s = evaluateRegistry(network, onTopicTogether, sameTopic);
      console.log(`the same, a category of the same topic (${groups.length} groups in ${sameTopicFile}) counted as right: first answer ${pct2(s.firstAnswer)}, right within two calls ${pct2(s.withinTwoCalls)}`);
    }
    process.exit(0);
  }
  console.log(`# ${only} registries in ${registriesDir} (${new Date().toISOString().slice(0, 10)}, Node ${process.version})`);
  console.log('| registry | categories | queries | first answer on-topic | declined | confident wrong | right within two calls | by kind |');
  console.log('|---|---|---|---|---|---|---|---|');
  const loaded: { name: string; reg: Awaited<ReturnType<typeof loadRegistry>>; set: LabelledQuery[] }[] = [];
  for (const name of folders) {
    const { registry: reg, queries: set } = readFolder(registriesDir, name);
    loaded.push({ name, reg, set });
    const r = evaluateRegistry(buildMatcher(reg, undefined, { meaning }), set);
    const kinds = Object.entries(r.byKind).map(([k, v]) => `${k} ${pct2(v.correct / v.total)}`).join(', ');
    console.log(`| ${name} | ${Object.keys(reg.categories).length} | ${r.queries} | ${pct2(r.firstAnswer)} | ${pct2(r.declined)} | ${(r.confidentWrong * 100).toFixed(1)}% | ${pct2(r.withinTwoCalls)} | ${kinds} |`);
  }
  /** The measures over every registry's queries together, with the given rules. */
  const pooled = (rules: MatcherRules) => {
    const m = pooledReport(loaded.map(({ reg, set }) => ({
      report: evaluateRegistry(buildMatcher(reg, rules.threshold, { rules, meaning }), set),
      queries: set,
    })));
    return { first: m.firstAnswer, declined: m.declined, wrong: m.confidentWrong, within: m.withinTwoCalls };
  };
  const base = pooled(RULES);
  const row = (label: string, m: ReturnType<typeof pooled>) =>
    `| ${label} | ${pct2(m.first)} | ${pct2(m.declined)} | ${(m.wrong * 100).toFixed(1)}% | ${pct2(m.within)} |`;
  console.log(`\n| pooled | first answer on-topic | declined | confident wrong | right within two calls |\n|---|---|---|---|---|\n${row('all rules', base)}`);
  if (process.argv.includes('--ablation')) {
    // Each rule turned off alone (a switch set to false, a weight to 0): what it is worth here.
    console.log('\nEach rule off in turn (pooled; compare with "all rules" above):\n\n| rule off | first answer on-topic | declined | confident wrong | right within two calls |\n|---|---|---|---|---|');
    const off: [string, Partial<MatcherRules>][] = [
      ...RULE_SWITCHES.map((name): [string, Partial<MatcherRules>] => [name, { [name]: false }]),
      ['intentWeight', { intentWeight: 0 }],
      ['minExplained', { minExplained: 0 }],
      ['sourceWeight', { sourceWeight: 0 }],
      ['broadEvidenceDiscount (and per word)', { broadEvidenceDiscount: 0, broadEvidencePerWord: 0 }],
      ['broadEvidencePerWord', { broadEvidencePerWord: 0 }],
      ['keywordWeight (1, as prose)', { keywordWeight: 1 }],
    ];
    for (const [label, change] of off) console.log(row(label, pooled({ ...RULES, ...change })));
  }
  process.exit(0);
}

if (queryFile !== undefined || option('registry') !== undefined) {
  print(`${queryFile ?? 'test/fixtures/queries.json'} on ${registryFile}`, evaluate(matcher, queries));
  process.exit(0);
}

const fresh = (JSON.parse(readFileSync(join(root, 'test/fixtures/queries-fresh.json'), 'utf8')) as { queries: LabelledQuery[] }).queries;
if (process.argv.includes('--tune-only')) {
  print('tune split', evaluate(matcher, queries.filter((q) => q.split === 'tune')));
} else {
  print('tune split (two thirds)', evaluate(matcher, queries.filter((q) => q.split === 'tune')));
  print('held-out split (one third)', evaluate(matcher, queries.filter((q) => q.split === 'holdout')));
  print('all labelled queries', evaluate(matcher, queries));
  print('fresh set (written after the first held-out look; no registry words taken from it)', evaluate(matcher, fresh));
  const untouched = (JSON.parse(readFileSync(join(root, 'test/fixtures/queries-untouched.json'), 'utf8')) as { queries: LabelledQuery[] }).queries;
  print('untouched set (written blind, never used for tuning)', evaluate(matcher, untouched));
}

/**
 * Median microseconds per query: on the first pass (nothing remembered yet), on variants of
 * queries already seen (other case and punctuation: the same content words) and on repeats.
 */
function medianMicros (m: Matcher, list: readonly string[], passes = 5): { first: number; variant: number; later: number } {
  const samples = { first: [] as number[], variant: [] as number[], later: [] as number[] };
  const time = (q: string, into: number[]) => {
    const start = performance.now();
    m.match(q);
    into.push((performance.now() - start) * 1000);
  };
  for (let p = 0; p < passes; p++) {
    for (const q of list) time(q, p === 0 ? samples.first : samples.later);
    if (p === 0) for (const q of list) time(`${q.toUpperCase()}?!`, samples.variant);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { first: median(samples.first), variant: median(samples.variant), later: median(samples.later) };
}

console.log('\n== speed');
const shipped = medianMicros(buildMatcher(registry, undefined, { meaning }), [...queries, ...fresh].map((q) => q.query), 20);
console.log(
  `shipped registry (${Object.keys(registry.categories).length} categories): median ${shipped.first.toFixed(1)} µs per query on a fresh matcher's first pass, ` +
    `${shipped.variant.toFixed(1)} µs for a variant of a query seen before (other case and punctuation), ${shipped.later.toFixed(1)} µs for a repeat`
);

const gc = (globalThis as { gc?: () => void }).gc;
const generated = generateRegistry(1000);
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const buildStart = performance.now();
const big = buildMatcher(generated.registry, undefined, { meaning });
const buildMs = performance.now() - buildStart;
gc?.();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
const bigMedian = medianMicros(big, generated.queries).first;
const hits = generated.queries.filter((q) => big.match(q).kind === 'match').length;
console.log(
  `generated registry (1000 categories, ${generated.queries.length} queries): index built once in ${buildMs.toFixed(0)} ms, ` +
    `${gc ? `${heapMb.toFixed(1)} MB of heap` : 'heap not measured (run with --expose-gc)'}, median ${(bigMedian / 1000).toFixed(3)} ms per query, ${hits} matched`
);
// Issue 30: a query's cost grows with what it matches, not with the number of categories: 10,000, words alone.
{
  const huge = generateRegistry(10_000);
  const m = buildMatcher(huge.registry);
  const list = huge.queries.slice(0, 2000);
  console.log(`generated registry (10,000 categories, ${list.length} queries, without the semantic stage): median ${(medianMicros(m, list, 1).first / 1000).toFixed(3)} ms per query`);
}

/**
 * What one query costs the first time (a fresh matcher each time, so nothing is remembered), the
 * median of several tries. The tries of the labelled and the adversarial queries are interleaved,
 * round by round, so that both see the same state of the machine (JIT, collector, other load): timed
 * one set after the other, the labelled median alone moved between 45 and 73 µs from run to run.
 */
function firstPassMicros (list: readonly string[], rounds = 7): number[] {
  const samples: number[][] = list.map(() => []);
  for (let r = 0; r < rounds; r++) {
    list.forEach((query, i) => {
      const m = buildMatcher(registry, undefined, { meaning });
      const start = performance.now();
      m.match(query);
      samples[i]!.push((performance.now() - start) * 1000);
    });
  }
  return samples.map((xs) => xs.sort((a, b) => a - b)[Math.floor(rounds / 2)]!);
}
const adversarial = (JSON.parse(readFileSync(join(root, 'test/fixtures/queries-adversarial.json'), 'utf8')) as { queries: string[] }).queries;
const labelled = [...queries, ...fresh].map((q) => q.query);
// Adversarial queries spread evenly among the labelled ones (any left over at the end).
const step = Math.max(1, Math.floor(labelled.length / adversarial.length));
const mixed: { query: string; adversarial: boolean }[] = [];
labelled.forEach((query, i) => {
  if (i % step === 0 && i / step < adversarial.length) mixed.push({ query: adversarial[i / step]!, adversarial: true });
  mixed.push({ query, adversarial: false });
});
mixed.push(...adversarial.slice(mixed.length - labelled.length).map((query) => ({ query, adversarial: true })));
const timed = firstPassMicros(mixed.map((m) => m.query));
const normal = timed.filter((_, i) => !mixed[i]!.adversarial).sort((a, b) => a - b);
const normalMedian = normal[Math.floor(normal.length / 2)]!;
const costs = mixed.flatMap((m, i) => (m.adversarial ? [{ q: m.query, us: timed[i]! }] : [])).sort((a, b) => b.us - a.us);
const worst = costs[0]!;
console.log('\n== same cost for every query (test/fixtures/queries-adversarial.json)');
console.log(
  `labelled queries, first pass: median ${normalMedian.toFixed(1)} µs; adversarial (${adversarial.length}): worst ${worst.us.toFixed(1)} µs = ` +
    `${(worst.us / normalMedian).toFixed(2)} x the median (target at most 5 x)`
);
for (const { q, us } of costs.slice(0, 3)) console.log(`  ${us.toFixed(1)} µs (${(us / normalMedian).toFixed(2)} x): ${JSON.stringify(q.slice(0, 60))}...`);
