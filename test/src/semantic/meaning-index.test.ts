import t from 'tap';
import { contentWords } from '../../../src/matcher/normalize.js';
import { runAtOnce } from '../../../src/util/slices.js';
import { meaningIndexSteps, MAX_EXAMPLE_VECTORS, MAX_EXAMPLES, PRESELECTED } from '../../../src/semantic/meaning-index.js';
import { loadWordVectors } from '../../../src/semantic/word-vectors.js';
import type { Registry } from '../../../src/registry/types.js';

const vectors = loadWordVectors();
const source = (rank: 1 | 2 | 3) => ({ rank, name: `Source ${rank}`, url: `https://example.org/${rank}`, type: 'article' as const, why: 'A good source.' });
const category = (name: string, description: string, queryPatterns: string[] = []) => ({
  name,
  description,
  tags: [],
  keywords: [],
  queryPatterns,
  sources: [source(1), source(2), source(3)],
});
const registry = (categories: Record<string, ReturnType<typeof category>>): Registry => ({ version: '1.0.0', updated: '2026-11-28', curator: { name: 'Test', pubkey: '' }, endorsements: [], categories });
const indexOf = (r: Registry) => runAtOnce(meaningIndexSteps(r, vectors, contentWords));

const topics = registry({
  'home-baking': category('Home baking', 'Baking bread, cakes and pastry in a home oven', ['why is my loaf dense']),
  'home-networking': category('Home networking', 'Routers, Wi-Fi coverage and firewalls for a household'),
  'vegetable-gardening': category('Vegetable gardening', 'Growing vegetables in beds and containers'),
});

t.test('a question in the asker own words is nearest to its topic', async (t) => {
  const ix = indexOf(topics);
  const nearest = ix.nearest(ix.vectorOf(contentWords('my dough never rises and the crumb is heavy'))!, 3);
  t.equal(nearest[0]!.slug, 'home-baking');
  t.equal(nearest.length, 3);
  t.ok(nearest[0]!.similarity > nearest[1]!.similarity && nearest[1]!.similarity >= nearest[2]!.similarity, 'nearest first');
  t.equal(ix.nearest(ix.vectorOf(contentWords('the signal drops upstairs on my laptop'))!, 1)[0]!.slug, 'home-networking');
  t.equal(ix.similarity(ix.vectorOf(['bread'])!, 'no-such-slug'), 0);
  t.equal(ix.vectorOf(['qwxzzkv']), undefined, 'no vector from words the table does not hold');
});

t.test("an example question counts on its own: a question worded like one is near it, however broad the category's text", async (t) => {
  const broad = registry({
    ...topics.categories,
    'kitchen-skills': category('Kitchen skills', 'Knife work, stocks, sauces, roasting, braising, frying, seasoning, plating and every other cooking technique', ['why is my bread loaf so dense']),
  });
  const ix = indexOf(broad);
  const q = ix.vectorOf(contentWords('why is my bread loaf so dense'))!;
  const exact = ix.similarity(q, 'kitchen-skills');
  t.ok(exact > 0.75, `the question is its example question (${exact})`);
});

t.test('bounded: a registry with thousands of example questions reads at most MAX_EXAMPLES of each, and a query compares every category once', async (t) => {
  const many = registry({ 'home-baking': category('Home baking', 'Baking bread', Array.from({ length: 5000 }, (_, i) => `question number ${i} about bread`)) });
  const steps = meaningIndexSteps(many, vectors, contentWords);
  let yields = 0;
  while (!steps.next().done) yields++;
  t.equal(yields, 1, 'one step per category');
  t.equal(MAX_EXAMPLES, 32);
  t.equal(indexOf(many).vectors, 1 + 1 + MAX_EXAMPLES, 'its whole text, its self-description and 32 example questions');
  const crowd = registry(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`topic-${i}`, category(`Topic ${i}`, 'bread', Array.from({ length: 40 }, (_, j) => `bread question ${j}`))])));
  const held = indexOf(crowd).vectors;
  t.ok(held <= MAX_EXAMPLE_VECTORS + 2 * 2000, `a peer's 2,000 categories of 40 example questions each hold ${held} vectors, not 84,000`);
  const wide = registry(Object.fromEntries(Array.from({ length: PRESELECTED * 3 }, (_, i) => [`topic-${i}`, category(`Topic ${i}`, i === 70 ? 'sourdough bread baking' : `subject ${i} of many`)])));
  const ix = indexOf(wide);
  t.equal(ix.nearest(ix.vectorOf(['sourdough', 'loaf'])!, 5)[0]!.slug, 'topic-70', 'the nearest is found among many');
});
