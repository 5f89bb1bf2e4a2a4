import t from 'tap';
import { buildMatcher } from '../../../src/matcher/matcher.js';
import { judgeWithoutPattern } from '../../../src/matcher/without-pattern.js';
import { loadRegistry } from '../../../src/registry/load.js';
import type { Registry } from '../../../src/registry/types.js';
import { fixture, SHIPPED_REGISTRY } from '../../helpers/build.js';

/** What `check` did before: the whole registry rebuilt without the one example question. */
function rebuilt (registry: Registry, slug: string, pattern: number, threshold: number) {
  const c = registry.categories[slug]!;
  const without = { ...c, queryPatterns: c.queryPatterns.filter((_, j) => j !== pattern) };
  return buildMatcher({ ...registry, categories: { ...registry.categories, [slug]: without } }).match(c.queryPatterns[pattern]!, threshold);
}

const summary = (o: ReturnType<typeof rebuilt>) => (o.kind === 'match' ? `match ${o.slug} ${o.score}` : `${o.reason} ${o.closest?.slug ?? '-'} ${o.closest?.score ?? '-'}`);

for (const [label, file] of [
  ['the shipped registry', SHIPPED_REGISTRY],
  ['a curator registry (tune-b)', fixture('registries', 'tune-b', 'registry.json')],
  ['a curator registry (blind-ae)', fixture('registries', 'blind-ae', 'registry.json')],
] as const) {
  t.test(`every example question of ${label} is judged as a rebuild without it judges it`, async (t) => {
    const registry = await loadRegistry(file);
    const judge = judgeWithoutPattern(registry);
    let questions = 0;
    let differ = 0;
    for (const [slug, c] of Object.entries(registry.categories)) {
      c.queryPatterns.forEach((question, i) => {
        questions++;
        const a = summary(judge(slug, i, 0.5));
        const b = summary(rebuilt(registry, slug, i, 0.5));
        if (a !== b) {
          differ++;
          t.equal(a, b, `${slug}: ${JSON.stringify(question)}`);
        }
      });
    }
    t.equal(differ, 0, `${questions} example questions, the same outcome and score for each`);
  });
}

t.test('the judge does see the question gone: a question whose words only it gave its category goes elsewhere without it', async (t) => {
  const registry = await loadRegistry(SHIPPED_REGISTRY);
  const slug = 'rust-learning';
  const c = registry.categories[slug]!;
  const changed: Registry = { ...registry, categories: { ...registry.categories, [slug]: { ...c, queryPatterns: [...c.queryPatterns, 'zebra quagga okapi husbandry'] } } };
  const judge = judgeWithoutPattern(changed);
  const asked = judge(slug, c.queryPatterns.length, 0.5);
  t.equal(asked.kind, 'no-match', 'without it, nothing in the registry knows those words');
  t.match(buildMatcher(changed).match('zebra quagga okapi husbandry'), { kind: 'match', slug }, 'with it, the category answers');
});
