/**
 * npm run bench:triage: what `triage --accept-all` costs on a 1,000-category registry (issue 32).
 * The report is what a month of traffic shows a curator at most: every category's most answered
 * questions (SHOWN.answered each), and declined questions near some of the categories, three ways
 * of asking each, three words of the category's and one it lacks.
 *
 *   TRIAGE_BENCH_CATEGORIES (default 1000)   categories in the registry
 *   TRIAGE_BENCH_NEAR (default 40)           categories with declined questions near them
 */
import type { DemandReport } from '../../src/demand/report.js';
import { SHOWN } from '../../src/demand/report.js';
import { takeAll } from '../../src/triage/suggest.js';
import { generateRegistry, random } from '../lib/generated-registry.js';

const CATEGORIES = Number(process.env.TRIAGE_BENCH_CATEGORIES ?? 1000);
const NEAR = Number(process.env.TRIAGE_BENCH_NEAR ?? 40);

const { registry } = generateRegistry(CATEGORIES);
const next = random(7);
const counted = (text: string) => ({ text, clients: 6, asks: 6 + Math.floor(next() * 20) });
const slugs = Object.keys(registry.categories);
const nearMisses: DemandReport['nearMisses'] = slugs.slice(0, NEAR).map((slug, i) => {
  const words = registry.categories[slug]!.queryPatterns[0]!.split(' ').slice(0, 3);
  const queries = [0, 1, 2].map((j) => counted(`${words.join(' ')} novel${i}x${j}`));
  return { slug, name: slug, declined: queries.length, unknownWords: [], queries };
});
const answered: DemandReport['answered'] = slugs.map((slug) => ({
  slug,
  name: slug,
  answered: SHOWN.answered,
  queries: registry.categories[slug]!.queryPatterns.slice(0, SHOWN.answered).map(counted),
}));
const byOutcome = { answered: 0, 'peer-answered': 0, 'below-threshold': 0, 'too-close': 0, 'too-vague': 0, 'out-of-scope': 0, 'no-words': 0, 'too-long': 0 };
const report: DemandReport = {
  recording: true,
  store: 'memory',
  window: { days: 30, from: '2026-10-30', to: '2026-11-28' },
  minClients: 5,
  totals: { requests: 0, byOutcome, answeredByCategory: {} },
  uncovered: [],
  nearMisses,
  answered,
  scopeRefusals: [],
};

const started = performance.now();
const { judged } = takeAll(registry, report, {});
const seconds = (performance.now() - started) / 1000;
const count = (pred: (j: (typeof judged)[number]) => boolean) => judged.filter(pred).length;
const judgedCount = count((j) => j.consequence !== undefined);
console.log(`\n== triage --accept-all on ${CATEGORIES.toLocaleString('en')} categories (${NEAR * 3} declined questions near ${NEAR} of them, ${answered.length * SHOWN.answered} answered questions)`);
console.log(
  `${judged.length} suggestions in ${seconds.toFixed(1)} s: ${judgedCount} judged on the rebuilt registry ` +
    `(${judgedCount > 0 ? ((seconds * 1000) / judgedCount).toFixed(0) : '-'} ms each), ` +
    `${count((j) => j.skipped === 'needs-curator')} not-about entries left to the curator unjudged, ${count((j) => j.skipped === undefined)} taken`
);
