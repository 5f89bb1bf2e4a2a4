import t from 'tap';
import { buildMatcher, RULES, type MatchOutcome } from '../../../src/matcher/matcher.js';
import { validateRegistry } from '../../../src/registry/validate.js';
import { smallRegistry } from '../../helpers/small-registry.js';
import { loadWordVectors } from '../../../src/semantic/word-vectors.js';

const meaning = loadWordVectors();
const registry = smallRegistry({
  'home-baking': { name: 'Home baking', description: 'Baking bread, cakes and pastry in a home oven', keywords: ['sourdough', 'yeast'] },
  'home-networking': { name: 'Home networking', description: 'Routers, wifi coverage and firewalls for a household', keywords: ['mesh wifi'] },
  'vegetable-gardening': { name: 'Vegetable gardening', description: 'Growing vegetables in raised beds and containers', keywords: ['companion planting'] },
  'bicycle-repair': { name: 'Bicycle repair', description: 'Fixing punctures, brakes and gears on a bike', keywords: ['derailleur'] },
  'tax-returns': { name: 'Tax returns', description: 'Filing an income tax return and claiming deductions', keywords: ['deductions'] },
  'dog-training': { name: 'Dog training', description: 'Teaching a puppy to sit, recall and walk on a lead', keywords: ['recall training'] },
  birdwatching: { name: 'Birdwatching', description: 'Identifying birds by sight and song, binoculars and field guides', keywords: ['binoculars'] },
});
const declined = (o: MatchOutcome) => {
  if (o.kind === 'match') throw new Error(`expected a decline, got ${o.slug}`);
  return o;
};

t.test('with the semantic stage, a decline also names the category nearest in meaning, which shares no word with the question', async (t) => {
  const question = 'my loaf came out flat and gummy';
  const words = declined(buildMatcher(registry).match(question));
  t.notOk(words.candidates.some((c) => c.slug === 'home-baking'), 'words alone cannot find it');
  const both = declined(buildMatcher(registry, undefined, { meaning }).match(question));
  const baking = both.candidates.find((c) => c.slug === 'home-baking');
  t.ok(baking !== undefined, 'the semantic stage names it');
  t.equal(baking!.score, 0, 'no word in common');
  t.ok(baking!.similarity! >= RULES.meaningFloor, `near enough in meaning (${baking!.similarity})`);
  t.equal(both.candidates[0]!.slug, 'home-baking', 'and first: nothing else is as near');
});

t.test('every candidate of a decline carries its similarity, and they are ranked by score plus similarity', async (t) => {
  const o = declined(buildMatcher(registry, undefined, { meaning }).match('wifi bread'));
  t.ok(o.candidates.length >= 2);
  for (const c of o.candidates) t.type(c.similarity, 'number', `${c.slug} has a similarity`);
  const weights = o.candidates.map((c) => c.score + c.similarity!);
  t.same(weights, [...weights].sort((a, b) => b - a), 'heaviest first');
});

t.test('candidates that could hardly be meant are not named', async (t) => {
  const m = buildMatcher(registry, undefined, { meaning });
  // Word vectors relate almost anything: dog training is the nearest to singing lessons (0.53), yet no lesson in singing.
  t.same(declined(m.match('opera singing lessons')).candidates, [], 'no word in common and nothing near enough in meaning: no candidate');
  t.same(declined(m.match('quantum chromodynamics lattice')).candidates, []);
});

t.test('at most five candidates, where eight categories share a word with the question', async (t) => {
  const many = declined(buildMatcher(registry, undefined, { meaning }).match('vegetables bike tax dog birds bread wifi puppy oven'));
  t.equal(many.candidates.length, 5);
  const three = declined(buildMatcher(registry, undefined, { meaning, rules: { ...RULES, declineCandidates: 3 } }).match('vegetables bike tax dog birds bread wifi puppy oven'));
  t.equal(three.candidates.length, 3, 'the setting is the bound');
});

t.test('an answer is the same with or without the semantic stage: it only adds candidates to declines', async (t) => {
  for (const q of ['sourdough starter', 'mesh wifi dead zones', 'derailleur adjustment', 'companion planting tomatoes']) {
    const a = buildMatcher(registry).match(q);
    const b = buildMatcher(registry, undefined, { meaning }).match(q);
    t.equal(a.kind, 'match', q);
    t.same(b, a, `${q}: the same answer`);
  }
});

t.test('a category that shares an everyday word with the question, and little of its meaning, is not named (issue 33, item 3)', async (t) => {
  const question = 'home insurance claim for a burst pipe';
  const words = declined(buildMatcher(registry).match(question));
  t.same(words.candidates.map((c) => c.slug), [], `two categories share "home" at a score under ${RULES.candidateScoreFloor}: no candidate`);
  const lexical = declined(buildMatcher(registry, undefined, { rules: { ...RULES, candidateScoreFloor: 0 } }).match(question));
  t.ok(lexical.candidates.some((c) => c.slug.startsWith('home-')), 'without the floor, the shared word named them');
});

t.test('a category whose curator put the question out of its scope is never named, however near in meaning (issue 33, item 3)', async (t) => {
  const question = 'my loaf came out flat and gummy';
  const scoped = validateRegistry({ ...registry, categories: { ...registry.categories, 'home-baking': { ...registry.categories['home-baking']!, notAbout: ['loaf'] } } });
  if (!scoped.ok) throw new Error(scoped.problems.join());
  const named = declined(buildMatcher(scoped.registry, undefined, { meaning }).match(question)).candidates;
  t.notOk(named.some((c) => c.slug === 'home-baking'), `not named: ${named.map((c) => c.slug).join(', ')}`);
  t.ok(declined(buildMatcher(registry, undefined, { meaning }).match(question)).candidates.some((c) => c.slug === 'home-baking'), 'without the entry it is');
});
