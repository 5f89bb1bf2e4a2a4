import t from 'tap';
import type { DemandReport } from '../../../src/demand/report.js';
import { buildMatcher } from '../../../src/matcher/matcher.js';
import { loadWordVectors } from '../../../src/semantic/word-vectors.js';
import { smallRegistry } from '../../helpers/small-registry.js';
import { applySuggestion, goesWrong, judgeOn, suggestionsFrom, takeAll, unknownSlugs, type Suggestion } from '../../../src/triage/suggest.js';

const meaning = loadWordVectors();
const registry = smallRegistry({
  'home-baking': { name: 'Home baking', description: 'Baking bread, cakes and pastry in a home oven', queryPatterns: ['how to bake sourdough bread', 'why did my cake sink'] },
  'vegetable-gardening': { name: 'Vegetable gardening', description: 'Growing vegetables in raised beds and containers', queryPatterns: ['when to plant tomatoes', 'raised bed soil mix'] },
  'bicycle-repair': { name: 'Bicycle repair', description: 'Fixing punctures, brakes and gears on a bike', queryPatterns: ['fix a flat tyre', 'adjust rim brakes'] },
});

const counted = (text: string) => ({ text, clients: 5, asks: 5 });
function reportOf (nearMisses: DemandReport['nearMisses'], answered: DemandReport['answered'] = []): DemandReport {
  const byOutcome = { answered: 0, 'peer-answered': 0, 'below-threshold': 0, 'too-close': 0, 'too-vague': 0, 'out-of-scope': 0, 'no-words': 0, 'too-long': 0 };
  return { recording: true, store: 'memory', window: { days: 30, from: '2026-11-01', to: '2026-11-28' }, minClients: 5, totals: { requests: 0, byOutcome, answeredByCategory: {} }, uncovered: [], nearMisses, answered, scopeRefusals: [] };
}

t.test('a suggestion is offered only where the question could belong: not a price, not one word, not a category it is not near (issue 32)', async (t) => {
  const report = reportOf([
    {
      slug: 'bicycle-repair',
      name: 'Bicycle repair',
      declined: 4,
      unknownWords: [],
      queries: [counted('squeaky disc brakes when wet'), counted('bike brakes price'), counted('brakes'), counted('python list comprehension'), counted('fix a flat tyre')],
    },
  ]);
  const found = suggestionsFrom(registry, report, buildMatcher(registry, undefined, { meaning }), true);
  t.same(found.map((s) => s.text), ['squeaky disc brakes when wet'], 'a price, one word, an unrelated question and one it holds already are not offered');
  t.equal(found[0]!.kind, 'example-question');
  const withoutMeaning = suggestionsFrom(registry, report, buildMatcher(registry), false);
  t.same(withoutMeaning, [], 'without the semantic stage, words must come half way (0.133 of 0.5 is not)');
});

t.test('what a suggestion would change: the declined questions it answers, and the example questions it moves away from their category', async (t) => {
  const judge = judgeOn(registry, undefined);
  const asked = ['squeaky disc brakes when wet', 'brakes squeal when wet', 'my disc brakes squeak in the wet', 'how to bake sourdough bread'];
  const good = judge({ kind: 'example-question', slug: 'bicycle-repair', text: 'squeaky disc brakes when wet', clients: 5, asks: 5 }, asked);
  t.ok(good.answers.includes('brakes squeal when wet') || good.answers.includes('my disc brakes squeak in the wet'), `it answers another way of asking: ${good.answers.join(', ')}`);
  t.notOk(good.answers.includes('how to bake sourdough bread'));
  t.same(good.moves, []);
  // The gardening category's own example question, taught to the baking category.
  const bad = judge({ kind: 'example-question', slug: 'home-baking', text: 'raised bed soil mix', clients: 5, asks: 5 }, []);
  t.ok(bad.moves.some((m) => m.question === 'raised bed soil mix' && m.of === 'vegetable-gardening' && m.from === 'vegetable-gardening'), 'its example question moves');
  t.ok(bad.moves.some(goesWrong), 'and goes wrong');
  const scoped = applySuggestion(registry, { kind: 'not-about', slug: 'home-baking', text: 'pizza oven', clients: 5, asks: 5 });
  t.same(scoped.categories['home-baking']!.notAbout, ['pizza oven'], 'a not-about suggestion adds the entry');
  t.equal(registry.categories['home-baking']!.notAbout, undefined, 'the registry given is not changed');
});

t.test('takeAll takes, in turn, what answers others and breaks nothing; it says why it skipped the rest', async (t) => {
  const report = reportOf([
    { slug: 'bicycle-repair', name: 'Bicycle repair', declined: 3, unknownWords: [], queries: [counted('squeaky disc brakes when wet'), counted('my disc brakes squeak in the wet'), counted('brakes squeal when wet')] },
  ]);
  const { registry: edited, judged } = takeAll(registry, report, { meaning });
  const taken = judged.filter((j) => j.skipped === undefined).map((j) => j.suggestion.text);
  t.ok(taken.length >= 1, `taken: ${taken.join(', ')}`);
  t.ok(judged.some((j) => j.skipped === 'answers-nothing'), 'one that answers only itself is skipped, and says so');
  t.ok(taken.every((text) => edited.categories['bicycle-repair']!.queryPatterns.includes(text)), 'what was taken is in the registry');
  const refused = takeAll(registry, report, { meaning, acceptable: () => false });
  t.ok(refused.judged.every((j) => j.skipped !== undefined), 'the caller may refuse each (check would warn)');
  t.ok(refused.judged.some((j) => j.skipped === 'adds-warnings'));
  t.equal(refused.registry, registry, 'nothing taken, the registry is the same');
});

t.test('a report that names a category the registry lacks was made for another registry', async (t) => {
  const report = reportOf([{ slug: 'knitting', name: 'Knitting', declined: 1, unknownWords: [], queries: [] }]);
  t.same(unknownSlugs(registry, report), ['knitting']);
  t.same(unknownSlugs(registry, reportOf([])), []);
  t.same(suggestionsFrom(registry, report, buildMatcher(registry), false), [], 'and it suggests nothing for it');
});

t.test('a question a category answered mostly in words it never uses is offered as a not-about entry for the curator; takeAll never takes one (issue 32)', async (t) => {
  const answered = [
    {
      slug: 'home-baking',
      name: 'Home baking',
      answered: 3,
      queries: [counted('hot dog stand permit bake sale'), counted('why did my cake sink'), counted('a user wants to bake for … what should she bake first')],
    },
  ];
  const report = reportOf([], answered);
  const found = suggestionsFrom(registry, report, buildMatcher(registry, undefined, { meaning }), true);
  t.same(
    found.map((s) => [s.kind, s.slug, s.text, s.from]),
    [['not-about', 'home-baking', 'hot', 'hot dog stand permit bake sale']],
    'its first foreign word, from the question; not a question in the topic\'s own words, nor one cut short'
  );
  const { judged, registry: after } = takeAll(registry, report, { meaning });
  t.same(judged.map((j) => j.skipped), ['needs-curator'], 'whether an answer was wrong is the curator\'s call');
  t.equal(after, registry);
  const judge = judgeOn(registry, undefined);
  const away = judge({ kind: 'not-about', slug: 'home-baking', text: 'cake', clients: 5, asks: 5 }, [], ['why did my cake sink', 'how to bake sourdough bread']);
  t.same(away.turnsAway, ['why did my cake sink'], 'it says which answered questions it would turn away');
});

t.test('takeAll skips, unjudged, an example question sharing no word with any other declined question near its category', async (t) => {
  const report = reportOf([
    { slug: 'bicycle-repair', name: 'Bicycle repair', declined: 2, unknownWords: [], queries: [counted('squeaky disc brakes when wet'), counted('adjust gears on a touring bike')] },
  ]);
  const { judged } = takeAll(registry, report, { meaning });
  const lone = judged.find((j) => j.suggestion.text === 'squeaky disc brakes when wet');
  t.match(lone, { skipped: 'answers-nothing' });
  t.equal(lone?.consequence, undefined, 'not judged: its text can answer no question it shares no word with');
  const judgedAll = takeAll(registry, report, { meaning, judgeAll: true }).judged.find((j) => j.suggestion.text === 'squeaky disc brakes when wet');
  t.ok(judgedAll?.consequence !== undefined, 'judged when asked to judge all');
});

t.test('once a suggestion is taken, the next is judged as on the edited registry built afresh, though its example questions are not all asked again', async (t) => {
  const taught: Suggestion = { kind: 'example-question', slug: 'home-baking', text: 'raised bed soil mix', clients: 5, asks: 5 };
  const next: Suggestion = { kind: 'not-about', slug: 'home-baking', text: 'soil', clients: 5, asks: 5 };
  const judge = judgeOn(registry, undefined);
  t.ok(judge(taught, []).moves.length > 0, 'the first moves an example question');
  const carried = judge.after(taught)(next, ['raised bed soil mix']);
  const afresh = judgeOn(applySuggestion(registry, taught), undefined)(next, ['raised bed soil mix']);
  t.same(carried, afresh);
  // The first made both copies of the question too close to call; the entry gives it back to gardening.
  t.same(
    afresh.moves.map((m) => [m.of, m.from, m.to]),
    [['home-baking', '', 'vegetable-gardening'], ['vegetable-gardening', '', 'vegetable-gardening']],
    'the example question taken moves, and the one the first moved moves from where the first left it'
  );
});
