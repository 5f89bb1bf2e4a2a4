import t from 'tap';
import { NO_REGISTRY, changedCategory, describeChange, registryChanges, type Change } from '../../../src/provenance/changes.js';
import { loadRegistry } from '../../../src/registry/load.js';
import type { Category, Endorsement, Registry, Source } from '../../../src/registry/types.js';
import { SHIPPED_REGISTRY, otherPublicKey } from '../../helpers/build.js';

const shipped = await loadRegistry(SHIPPED_REGISTRY);
const rust = shipped.categories['rust-learning']!;
const [book, rustlings, zero2prod] = rust.sources as [Source, Source, Source];

/** The shipped registry with one category replaced (or, given undefined, removed): a copy, never a mutation. */
function withCategory (slug: string, category: Category | undefined, base: Registry = shipped): Registry {
  const categories: Record<string, Category> = { ...base.categories };
  if (category === undefined) delete categories[slug];
  else categories[slug] = category;
  return { ...base, categories };
}

/** rust-learning with its three sources replaced. */
function rustWithSources (sources: readonly Source[]): Registry {
  return withCategory('rust-learning', { ...rust, sources });
}

function endorsement (pubkey: string, name: string, extra: Partial<Endorsement> = {}): Endorsement {
  return { pubkey, name, url: `https://${name.toLowerCase()}.example/`, since: '2026-01-01', ...extra };
}

t.test('the shipped registry is loaded frozen, with rust-learning ranked 1 to 3 (the fixtures these tests build on)', async (t) => {
  t.ok(Object.isFrozen(shipped.categories), 'copy, never mutate');
  t.same(rust.sources.map((s) => s.rank), [1, 2, 3]);
  t.equal(book.url, 'https://doc.rust-lang.org/book/');
  t.equal(rustlings.url, 'https://github.com/rust-lang/rustlings');
});

t.test('a first signing lists every category as added, each followed by its three sources by rank, and no curator change', async (t) => {
  const changes = registryChanges(NO_REGISTRY, shipped);
  const slugs = Object.keys(shipped.categories).sort();
  t.ok(slugs.length >= 2, 'several categories to order');
  const expected: Change[] = slugs.flatMap((slug) => [
    { change: 'added', category: slug },
    ...shipped.categories[slug]!.sources.map((s) => ({ change: 'added' as const, category: slug, rank: s.rank, url: s.url })),
  ]);
  t.same(changes, expected);
  t.equal(changes.length, slugs.length * 4, 'a category and its three sources each');
  t.notOk(changes.some((c) => 'curator' in c), 'the curator is not a change from nothing, though its name differs from NO_REGISTRY');
  t.not(shipped.curator.name, NO_REGISTRY.curator.name, 'the names do differ');
  t.notOk(changes.some((c) => 'endorsement' in c), 'the shipped registry has no endorsements');
  t.same(changes.slice(0, 4).map(describeChange), [
    'added category bitcoin-node-setup',
    'added source bitcoin-node-setup #1 (https://bitcoin.org/en/full-node)',
    'added source bitcoin-node-setup #2 (https://umbrel.com/)',
    'added source bitcoin-node-setup #3 (https://raspibolt.org/)',
  ]);
});

t.test('NO_REGISTRY is empty: no categories, no endorsements, no curator', async (t) => {
  t.same(NO_REGISTRY, { categories: {}, endorsements: [], curator: { name: '', pubkey: '' } });
});

t.test('the same registry, or one with only a new version and date, gives no changes', async (t) => {
  t.same(registryChanges(shipped, shipped), []);
  const bumped: Registry = { ...shipped, version: '9.9.9', updated: '2027-12-31' };
  t.same(registryChanges(shipped, bumped), []);
  const copied = withCategory('rust-learning', { ...rust, sources: rust.sources.map((s) => ({ ...s })), tags: [...rust.tags] });
  t.same(registryChanges(shipped, copied), [], 'equal values in new objects are not changes');
});

t.test('a new category is added, followed by its three sources by rank', async (t) => {
  const sources: Source[] = [
    { rank: 1, name: 'One', url: 'https://one.example/', type: 'article', why: 'first' },
    { rank: 2, name: 'Two', url: 'https://two.example/', type: 'video', why: 'second' },
    { rank: 3, name: 'Three', url: 'https://three.example/', type: 'book', why: 'third' },
  ];
  const after = withCategory('zig-learning', { ...rust, name: 'Zig', sources });
  t.same(registryChanges(shipped, after), [
    { change: 'added', category: 'zig-learning' },
    { change: 'added', category: 'zig-learning', rank: 1, url: 'https://one.example/' },
    { change: 'added', category: 'zig-learning', rank: 2, url: 'https://two.example/' },
    { change: 'added', category: 'zig-learning', rank: 3, url: 'https://three.example/' },
  ]);
});

t.test('a removed category is one removal, its sources going with it', async (t) => {
  const after = withCategory('threat-modeling', undefined);
  t.same(registryChanges(shipped, after), [{ change: 'removed', category: 'threat-modeling' }]);
  t.same(registryChanges(shipped, after).map(describeChange), ['removed category threat-modeling']);
});

t.test('changed category fields are named, in the order name, description, tags, keywords, queryPatterns', async (t) => {
  const renamed = withCategory('rust-learning', { ...rust, keywords: [...rust.keywords, 'cargo new'], name: 'Learning Rust' });
  t.same(registryChanges(shipped, renamed), [{ change: 'changed', category: 'rust-learning', fields: ['name', 'keywords'] }]);

  const everything = withCategory('rust-learning', {
    ...rust,
    queryPatterns: ['learn rust'],
    keywords: ['rust'],
    tags: ['rust'],
    description: 'Another description.',
    name: 'Rust',
  });
  t.same(registryChanges(shipped, everything), [
    { change: 'changed', category: 'rust-learning', fields: ['name', 'description', 'tags', 'keywords', 'queryPatterns'] },
  ]);

  const reordered = withCategory('rust-learning', { ...rust, tags: [...rust.tags].reverse() });
  t.not(rust.tags.join(), [...rust.tags].reverse().join(), 'the shipped tags are not a palindrome');
  t.same(registryChanges(shipped, reordered), [{ change: 'changed', category: 'rust-learning', fields: ['tags'] }], 'the order of a list counts');
});

t.test('a source with the same URL at the same rank and a new why is changed, naming why', async (t) => {
  const after = rustWithSources([book, { ...rustlings, why: 'Small exercises that teach by fixing code.' }, zero2prod]);
  const changes = registryChanges(shipped, after);
  t.same(changes, [{ change: 'changed', category: 'rust-learning', rank: 2, url: rustlings.url, fields: ['why'] }]);
  t.same(changes.map(describeChange), ['changed source rust-learning #2 (https://github.com/rust-lang/rustlings): why']);
});

t.test('a source with the same URL and a new name, type and why names the three, in that order', async (t) => {
  const after = rustWithSources([book, rustlings, { ...zero2prod, why: 'new why', type: 'course', name: 'Zero2Prod' }]);
  t.not(zero2prod.type, 'course', 'the type really changes');
  t.same(registryChanges(shipped, after), [
    { change: 'changed', category: 'rust-learning', rank: 3, url: zero2prod.url, fields: ['name', 'type', 'why'] },
  ]);
});

t.test('another URL at a rank is a removal and an addition at that rank, even when nothing else changed', async (t) => {
  const after = rustWithSources([book, { ...rustlings, url: 'https://rustlings.example/' }, zero2prod]);
  const changes = registryChanges(shipped, after);
  t.same(changes, [
    { change: 'removed', category: 'rust-learning', rank: 2, url: rustlings.url },
    { change: 'added', category: 'rust-learning', rank: 2, url: 'https://rustlings.example/' },
  ]);
  t.same(changes.map(describeChange), [
    'removed source rust-learning #2 (https://github.com/rust-lang/rustlings)',
    'added source rust-learning #2 (https://rustlings.example/)',
  ]);
});

t.test('swapping two sources\' ranks removes and adds each at its rank', async (t) => {
  const after = rustWithSources([{ ...rustlings, rank: 1 }, { ...book, rank: 2 }, zero2prod]);
  t.same(registryChanges(shipped, after), [
    { change: 'removed', category: 'rust-learning', rank: 1, url: book.url },
    { change: 'added', category: 'rust-learning', rank: 1, url: rustlings.url },
    { change: 'removed', category: 'rust-learning', rank: 2, url: rustlings.url },
    { change: 'added', category: 'rust-learning', rank: 2, url: book.url },
  ]);
});

t.test('a category change comes before its source changes', async (t) => {
  const after = withCategory('rust-learning', { ...rust, name: 'Rust', sources: [book, rustlings, { ...zero2prod, why: 'new why' }] });
  t.same(registryChanges(shipped, after).map(describeChange), [
    'changed category rust-learning: name',
    'changed source rust-learning #3 (https://www.zero2prod.com/): why',
  ]);
});

t.test('endorsements are added, removed and changed by key, a change naming its fields and the new name', async (t) => {
  const [k1, k2, k3, k4] = [otherPublicKey(), otherPublicKey(), otherPublicKey(), otherPublicKey()].sort() as [string, string, string, string];
  const before: Registry = {
    ...shipped,
    endorsements: [endorsement(k1, 'Alice'), endorsement(k2, 'Bob'), endorsement(k4, 'Dan')],
  };
  const after: Registry = {
    ...shipped,
    endorsements: [
      endorsement(k4, 'Dan'),
      endorsement(k3, 'Carol'),
      endorsement(k2, 'Robert', { url: 'https://bob.example/', since: '2026-02-02' }),
    ],
  };
  const changes = registryChanges(before, after);
  t.same(changes, [
    { change: 'removed', endorsement: k1, name: 'Alice' },
    { change: 'changed', endorsement: k2, name: 'Robert', fields: ['name', 'since'] },
    { change: 'added', endorsement: k3, name: 'Carol' },
  ]);
  t.same(changes.map(describeChange), [
    `removed endorsement Alice (${k1})`,
    `changed endorsement Robert (${k2}): name, since`,
    `added endorsement Carol (${k3})`,
  ]);
  t.same(
    registryChanges(before, { ...before, endorsements: [endorsement(k1, 'Alice', { url: 'https://alice.example/new' }), ...before.endorsements.slice(1)] }),
    [{ change: 'changed', endorsement: k1, name: 'Alice', fields: ['url'] }],
    'a new URL alone'
  );
  t.same(registryChanges(before, { ...before, endorsements: [...before.endorsements].reverse() }), [], 'their order in the file is not a change');
});

t.test('a curator name change is listed, and a new curator key too', async (t) => {
  const renamed: Registry = { ...shipped, curator: { ...shipped.curator, name: 'Someone Else' } };
  t.same(registryChanges(shipped, renamed), [{ change: 'changed', curator: ['name'] }]);
  t.same(registryChanges(shipped, renamed).map(describeChange), ['changed curator: name']);
  const rekeyed: Registry = { ...shipped, curator: { name: 'Someone Else', pubkey: otherPublicKey() } };
  t.same(registryChanges(shipped, rekeyed), [{ change: 'changed', curator: ['name', 'pubkey'] }]);
  t.same(registryChanges(shipped, rekeyed).map(describeChange), ['changed curator: name, pubkey']);
});

t.test('changes come in a stable order: curator, endorsements sorted by key, then categories sorted by slug', async (t) => {
  const [k1, k2, k3] = [otherPublicKey(), otherPublicKey(), otherPublicKey()].sort() as [string, string, string];
  let after: Registry = {
    ...shipped,
    curator: { ...shipped.curator, name: 'New curators' },
    endorsements: [endorsement(k3, 'Zed'), endorsement(k1, 'Amy'), endorsement(k2, 'Max')],
  };
  after = withCategory('threat-modeling', undefined, after);
  after = withCategory('bitcoin-node-setup', { ...shipped.categories['bitcoin-node-setup']!, name: 'Bitcoin nodes' }, after);
  after = withCategory('aaa-first', rust, after);
  // The same registry with its categories inserted in reverse order: the order of the changes does not follow the file.
  const reversed: Registry = { ...after, categories: Object.fromEntries(Object.entries(after.categories).reverse()) };
  const expected = [
    'changed curator: name',
    `added endorsement Amy (${k1})`,
    `added endorsement Max (${k2})`,
    `added endorsement Zed (${k3})`,
    'added category aaa-first',
    'added source aaa-first #1 (https://doc.rust-lang.org/book/)',
    'added source aaa-first #2 (https://github.com/rust-lang/rustlings)',
    'added source aaa-first #3 (https://www.zero2prod.com/)',
    'changed category bitcoin-node-setup: name',
    'removed category threat-modeling',
  ];
  t.same(registryChanges(shipped, after).map(describeChange), expected);
  t.same(registryChanges(shipped, reversed).map(describeChange), expected);
  const shippedReversed: Registry = { ...shipped, categories: Object.fromEntries(Object.entries(shipped.categories).reverse()) };
  t.same(registryChanges(shippedReversed, after).map(describeChange), expected, 'nor the order of the one before');
});

t.test('describeChange writes one exact line for every shape of change', async (t) => {
  const key = otherPublicKey();
  const lines: [Change, string][] = [
    [{ change: 'added', category: 'x' }, 'added category x'],
    [{ change: 'removed', category: 'x' }, 'removed category x'],
    [{ change: 'changed', category: 'x', fields: ['name', 'tags'] }, 'changed category x: name, tags'],
    [{ change: 'added', category: 'x', rank: 1, url: 'https://a.example/' }, 'added source x #1 (https://a.example/)'],
    [{ change: 'removed', category: 'x', rank: 3, url: 'https://b.example/' }, 'removed source x #3 (https://b.example/)'],
    [
      { change: 'changed', category: 'rust-learning', rank: 2, url: 'https://github.com/rust-lang/rustlings', fields: ['why'] },
      'changed source rust-learning #2 (https://github.com/rust-lang/rustlings): why',
    ],
    [{ change: 'changed', category: 'x', rank: 2, url: 'https://c.example/', fields: ['name', 'type', 'why'] }, 'changed source x #2 (https://c.example/): name, type, why'],
    [{ change: 'added', endorsement: key, name: 'Name' }, `added endorsement Name (${key})`],
    [{ change: 'removed', endorsement: key, name: 'Name' }, `removed endorsement Name (${key})`],
    [{ change: 'changed', endorsement: key, name: 'Name', fields: ['url', 'since'] }, `changed endorsement Name (${key}): url, since`],
    [{ change: 'changed', curator: ['name'] }, 'changed curator: name'],
    [{ change: 'changed', curator: ['name', 'pubkey'] }, 'changed curator: name, pubkey'],
  ];
  for (const [change, line] of lines) t.equal(describeChange(change), line, line);
});

t.test('changedCategory names the category of category and source changes, and none for curator or endorsements', async (t) => {
  t.equal(changedCategory({ change: 'added', category: 'x' }), 'x');
  t.equal(changedCategory({ change: 'removed', category: 'y' }), 'y');
  t.equal(changedCategory({ change: 'changed', category: 'z', fields: ['name'] }), 'z');
  t.equal(changedCategory({ change: 'added', category: 'rust-learning', rank: 1, url: 'https://a.example/' }), 'rust-learning');
  t.equal(changedCategory({ change: 'changed', category: 'rust-learning', rank: 2, url: 'https://a.example/', fields: ['why'] }), 'rust-learning');
  t.equal(changedCategory({ change: 'added', endorsement: otherPublicKey(), name: 'Name' }), undefined);
  t.equal(changedCategory({ change: 'changed', endorsement: otherPublicKey(), name: 'Name', fields: ['url'] }), undefined);
  t.equal(changedCategory({ change: 'changed', curator: ['name'] }), undefined);
  t.same(
    [...new Set(registryChanges(NO_REGISTRY, shipped).map(changedCategory))],
    Object.keys(shipped.categories).sort(),
    'a first signing touches every category'
  );
});

t.test(
  'a category whose slug is also an Object.prototype property (constructor) is added and removed like any other',
  async (t) => {
    const after = withCategory('constructor', rust);
    t.doesNotThrow(() => registryChanges(shipped, after), 'adding it');
    t.doesNotThrow(() => registryChanges(after, shipped), 'removing it');
    t.doesNotThrow(() => registryChanges(NO_REGISTRY, after), 'a first signing with it');
  }
);
