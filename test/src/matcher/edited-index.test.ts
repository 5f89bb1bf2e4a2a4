import t from 'tap';
import { EditableIndex } from '../../../src/matcher/edited-index.js';
import { indexSteps, type MatcherIndex } from '../../../src/matcher/index.js';
import { buildMatcher, RULES } from '../../../src/matcher/matcher.js';
import type { Category, Registry } from '../../../src/registry/types.js';
import { runAtOnce } from '../../../src/util/slices.js';
import { smallRegistry } from '../../helpers/small-registry.js';

// Slugs in order: apiary-keeping, bicycle-repair, compost-heaps. "wasps" and "tyres" are first
// written by the later categories.
const registry = smallRegistry({
  'apiary-keeping': { name: 'Apiary keeping', description: 'Keeping honey bees in hives', queryPatterns: ['how to start a beehive'] },
  'bicycle-repair': { name: 'Bicycle repair', description: 'Fixing punctures and brakes', queryPatterns: ['fix flat tyres', 'wasps nest in my bike frame'] },
  'compost-heaps': { name: 'Compost heaps', description: 'Making compost at home', queryPatterns: ['wasps in the compost heap'] },
});

const edit = (r: Registry, slug: string, change: (c: Category) => Category): Registry => ({
  ...r,
  categories: { ...r.categories, [slug]: change(r.categories[slug]!) },
});
const whole = (r: Registry): MatcherIndex => runAtOnce(indexSteps(r, RULES, undefined));
const termsOf = (ix: MatcherIndex) => [...whole(ix.registry).terms.keys()].map((stem) => {
  const term = ix.terms.get(stem);
  return [stem, term?.ids, term?.fields, [...(term?.flags ?? [])], term?.weight];
});

t.test('an example question added: the index is what indexing the edited registry gives, its vocabulary in the same order', async (t) => {
  const editable = EditableIndex.of(registry, RULES, new WeakMap());
  const edited = edit(registry, 'apiary-keeping', (c) => ({ ...c, queryPatterns: [...c.queryPatterns, 'wasps robbing my hive overwintering'] }));
  const e = editable.with('apiary-keeping', edited.categories['apiary-keeping']!)!;
  const fresh = whole(edited);
  t.same(e.vocabulary, [...fresh.spellings.keys()], 'a word the category now writes first ("wasps") moves to its turn; a new one ("overwintering") is in it');
  t.ok(e.vocabulary.indexOf('wasps') < e.vocabulary.indexOf('fix'), 'before the later categories\' words');
  t.same(termsOf({ ...e.index, registry: edited }), termsOf(fresh), 'every word: its categories, fields, flags and weight');
  t.equal(e.index.longestWord, 'overwintering'.length, 'its longest word is the new one');
  const matcher = buildMatcher(edited, undefined, { prebuilt: e });
  const anew = buildMatcher(edited);
  for (const q of ['wasps robbing my hive', 'wasps in the compost heap', 'overwintering', 'overwinterring bees', 'wsaps in my hive']) t.same(matcher.match(q), anew.match(q), q);
});

t.test('a not-about entry added: the entries by first word are the edited registry\'s, in the order of its categories', async (t) => {
  const withEntries = edit(registry, 'compost-heaps', (c) => ({ ...c, notAbout: ['wasps nest removal'] }));
  const editable = EditableIndex.of(withEntries, RULES, new WeakMap());
  const edited = edit(withEntries, 'apiary-keeping', (c) => ({ ...c, notAbout: ['wasps traps'] }));
  const e = editable.with('apiary-keeping', edited.categories['apiary-keeping']!)!;
  t.same(e.index.exclusions.get('wasp'), whole(edited).exclusions.get('wasp'));
  t.same(e.index.exclusions.get('wasp')?.map((x) => x.slug), ['apiary-keeping', 'compost-heaps']);
});

t.test('an edit of more than example questions and not-about entries is indexed anew', async (t) => {
  const editable = EditableIndex.of(registry, RULES, new WeakMap());
  const c = registry.categories['bicycle-repair']!;
  t.equal(editable.with('bicycle-repair', { ...c, name: 'Bike repair' }), undefined, 'its name');
  t.equal(editable.with('bicycle-repair', { ...c, keywords: ['derailleur'] }), undefined, 'its keywords');
  t.equal(editable.with('bicycle-repair', { ...c, queryPatterns: ['wasps nest in my bike frame'] }), undefined, 'a word it wrote first ("tyres") dropped');
  t.equal(editable.with('no-such-topic', c), undefined, 'a slug it does not have');
});

t.test('a source\'s words changed: the words only it held leave the index, as indexing anew would leave them out', async (t) => {
  const withSpokes = edit(registry, 'bicycle-repair', (c) => ({ ...c, sources: c.sources.map((s, i) => (i === 0 ? { ...s, why: 'Spokes and wheels, trued by hand.' } : s)) }));
  const editable = EditableIndex.of(withSpokes, RULES, new WeakMap());
  t.ok(editable.index.terms.has('spoke'), 'a word of a source is one of the category\'s words');
  const back = edit(withSpokes, 'bicycle-repair', () => registry.categories['bicycle-repair']!);
  const e = editable.with('bicycle-repair', back.categories['bicycle-repair']!)!;
  t.equal(e.index.terms.get('spoke'), undefined);
  t.same(termsOf({ ...e.index, registry: back }), termsOf(whole(back)));
});
