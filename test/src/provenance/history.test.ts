import t from 'tap';
import { canonicalBytes, sha256Hex } from '../../../src/provenance/canonical.js';
import { NO_REGISTRY, registryChanges, type Change } from '../../../src/provenance/changes.js';
import { checkHistory, entryHash, formatHistory, lastChangedDates, signEntry, type HistoryEntry, type UnsignedEntry } from '../../../src/provenance/history.js';
import { generateKey, keyFromSeed, type CuratorKey } from '../../../src/provenance/keys.js';
import { verifySignature } from '../../../src/provenance/signature.js';
import { loadRegistry } from '../../../src/registry/load.js';
import { SHIPPED_REGISTRY, TEST_SEED, otherPublicKey } from '../../helpers/build.js';

const key = keyFromSeed(TEST_SEED);
const other = generateKey().key;
const shipped = await loadRegistry(SHIPPED_REGISTRY);

const rustlings = shipped.categories['rust-learning']!.sources[1]!;
const FIRST_CHANGES = registryChanges(NO_REGISTRY, shipped);
const SECOND_CHANGES: Change[] = [{ change: 'changed', category: 'rust-learning', rank: 2, url: rustlings.url, fields: ['why'] }];
const THIRD_CHANGES: Change[] = [
  { change: 'changed', curator: ['name'] },
  { change: 'added', category: 'zig-learning' },
  { change: 'removed', category: 'threat-modeling' },
];

interface Step {
  readonly version: string;
  readonly date: string;
  readonly changes?: readonly Change[];
  /** Signs this entry with another key. */
  readonly key?: CuratorKey;
  /** Fields added to (or, as undefined, dropped from) the entry before it is signed. */
  readonly extra?: Record<string, unknown>;
}

/** A properly linked and signed chain: each entry names the hash of the one before, the first none. */
function chain (steps: readonly Step[]): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  for (const step of steps) {
    const previous = entries.length === 0 ? null : entryHash(entries[entries.length - 1]!);
    const unsigned = {
      version: step.version,
      date: step.date,
      sha256: sha256Hex(Buffer.from(`registry ${step.version}`)),
      previous,
      changes: step.changes ?? [],
      ...step.extra,
    } as UnsignedEntry;
    entries.push(signEntry(unsigned, step.key ?? key));
  }
  return entries;
}

const STEPS: readonly Step[] = [
  { version: '1.0.0', date: '2026-01-01T00:00:00Z', changes: FIRST_CHANGES },
  { version: '1.1.0', date: '2026-02-01T00:00:00Z', changes: SECOND_CHANGES },
  { version: '2.0.0', date: '2026-03-01T00:00:00Z', changes: THIRD_CHANGES },
];
const entries = chain(STEPS);
const [e1, e2, e3] = entries as [HistoryEntry, HistoryEntry, HistoryEntry];

/** An entry's signed content without its key and signature: what signEntry takes. */
function unsigned ({ signature: _signature, publicKey: _publicKey, ...rest }: HistoryEntry): UnsignedEntry {
  return rest;
}

/** The problem checkHistory reports for these entries (written with formatHistory), or 'ok'. */
function problemWith (list: readonly unknown[], publicKey = key.publicKey): string {
  const result = checkHistory(formatHistory(list as HistoryEntry[]), publicKey);
  return result.ok ? 'ok' : result.problem;
}

const NOT_FOLLOWING = 'its previous-entry hash differs: an entry was changed, removed or reordered';
const NOT_AN_ENTRY = 'not a history entry (missing or malformed fields)';

t.test('a signed chain of three entries checks, and the check gives back the entries', async (t) => {
  t.equal(e1.previous, null, 'the first names no predecessor');
  t.equal(e2.previous, entryHash(e1));
  t.equal(e3.previous, entryHash(e2));
  const result = checkHistory(formatHistory(entries), key.publicKey);
  t.same(result, { ok: true, entries });
  t.same(checkHistory(formatHistory([e1]), key.publicKey), { ok: true, entries: [e1] }, 'a single first entry');
  t.same(
    checkHistory(JSON.stringify(entries, null, 2), key.publicKey),
    { ok: false, problem: 'not in the form sign writes (one RFC 8785 entry per line): edited after signing?' },
    'only the layout sign writes: what is served is then exactly what was checked'
  );
});

t.test('signEntry adds the public key and an Ed25519 signature over every other field', async (t) => {
  t.equal(e1.publicKey, key.publicKey);
  t.same(Object.keys(e1).sort(), ['changes', 'date', 'previous', 'publicKey', 'sha256', 'signature', 'version']);
  t.equal(Buffer.from(e1.signature, 'base64').length, 64, 'base64 of 64 bytes');
  const { signature, ...signed } = e1;
  t.ok(verifySignature(canonicalBytes(signed), signature, key.publicKey), 'verifies over the RFC 8785 bytes of the rest');
  t.notOk(verifySignature(canonicalBytes({ ...signed, date: '2026-01-02T00:00:00Z' }), signature, key.publicKey), 'covers the date');
  t.notOk(verifySignature(canonicalBytes({ ...signed, publicKey: other.publicKey }), signature, key.publicKey), 'covers the public key');
  t.equal(signEntry(unsigned(e1), other).publicKey, other.publicKey, 'the key given, whatever the entry said');
  t.equal(signEntry(unsigned(e1), key).signature, e1.signature, 'Ed25519 is deterministic: the same entry, the same signature');
});

t.test('formatHistory writes a JSON array, oldest first, one canonical entry per line', async (t) => {
  const text = formatHistory(entries);
  t.equal(text, `[\n${canonicalBytes(e1)},\n${canonicalBytes(e2)},\n${canonicalBytes(e3)}\n]\n`);
  const lines = text.split('\n');
  t.same(lines.length, 6, '[, three entries, ] and the final newline');
  t.equal(lines[0], '[');
  t.equal(lines[4], ']');
  t.equal(lines[5], '', 'ends with a newline');
  t.same(JSON.parse(text), entries);
  t.equal(formatHistory([e1]), `[\n${canonicalBytes(e1)}\n]\n`, 'one entry: no comma');
});

t.test('an entry altered after signing is refused: its signature does not verify', async (t) => {
  const altered = (change: Partial<HistoryEntry>) => problemWith([e1, { ...e2, ...change }, e3]);
  const expected = 'entry 2 (version 1.1.0): its signature does not verify (the entry was altered after signing)';
  t.equal(altered({ date: '2026-02-02T00:00:00Z' }), expected, 'the date');
  t.equal(altered({ sha256: sha256Hex(Buffer.from('another registry')) }), expected, 'the registry digest');
  t.equal(altered({ changes: [] }), expected, 'the changes');
  t.equal(altered({ changes: [{ ...SECOND_CHANGES[0]!, fields: ['name'] } as Change] }), expected, 'one field of a change');
  t.equal(
    altered({ version: '1.2.0' }),
    'entry 2 (version 1.2.0): its signature does not verify (the entry was altered after signing)',
    'the version, named as the file now says it'
  );
  t.equal(
    problemWith([{ ...e1, changes: FIRST_CHANGES.slice(1) }, e2, e3]),
    'entry 1 (version 1.0.0): its signature does not verify (the entry was altered after signing)',
    'the first entry'
  );
});

t.test('an entry that claims the trusted key but was signed by another is refused: its signature does not verify', async (t) => {
  const [, forged] = chain([STEPS[0]!, { ...STEPS[1]!, key: other }]);
  t.equal(
    problemWith([e1, { ...forged!, publicKey: key.publicKey }]),
    'entry 2 (version 1.1.0): its signature does not verify (the entry was altered after signing)'
  );
});

t.test('reordered entries are refused', async (t) => {
  t.equal(problemWith([e1, e3, e2]), `entry 2 (version 2.0.0): does not follow entry 1 (${NOT_FOLLOWING})`);
  t.equal(problemWith([e2, e1, e3]), 'entry 1 (version 1.1.0): the first entry names a predecessor (entries before it were removed?)');
  t.equal(problemWith([e3, e2, e1]), 'entry 1 (version 2.0.0): the first entry names a predecessor (entries before it were removed?)');
});

t.test('an entry removed from the middle is refused: the next does not follow', async (t) => {
  t.equal(problemWith([e1, e3]), `entry 2 (version 2.0.0): does not follow entry 1 (${NOT_FOLLOWING})`);
});

t.test('an entry repeated is refused', async (t) => {
  t.equal(problemWith([e1, e1]), `entry 2 (version 1.0.0): does not follow entry 1 (${NOT_FOLLOWING})`);
  t.equal(problemWith([e1, e2, e2, e3]), `entry 3 (version 1.1.0): does not follow entry 2 (${NOT_FOLLOWING})`);
});

t.test('a history whose first entries were removed is refused: the first names a predecessor', async (t) => {
  t.equal(problemWith([e2, e3]), 'entry 1 (version 1.1.0): the first entry names a predecessor (entries before it were removed?)');
  t.equal(problemWith([e3]), 'entry 1 (version 2.0.0): the first entry names a predecessor (entries before it were removed?)');
});

t.test('a later entry naming no predecessor is refused: it does not follow', async (t) => {
  const [, orphan] = chain([STEPS[0]!, STEPS[1]!]).map((e, i) => (i === 1 ? signEntry({ ...unsigned(e), previous: null }, key) : e));
  t.equal(problemWith([e1, orphan]), `entry 2 (version 1.1.0): does not follow entry 1 (${NOT_FOLLOWING})`);
});

t.test('an entry after one altered in place is refused even when the altered one was re-signed', async (t) => {
  const resigned = signEntry({ ...unsigned(e2), date: '2026-02-02T00:00:00Z' }, key);
  t.equal(problemWith([e1, resigned, e3]), `entry 3 (version 2.0.0): does not follow entry 2 (${NOT_FOLLOWING})`);
});

t.test('a truncated file is refused, said to be truncated, without quoting it', async (t) => {
  const text = formatHistory(entries);
  const result = checkHistory(text.slice(0, Math.floor(text.length / 2)), key.publicKey);
  t.equal(result.ok, false);
  if (result.ok) return;
  t.match(result.problem, /^not valid JSON at line \d+, column \d+: .+ \(a truncated or hand-edited file\?\)$/);
  t.notMatch(result.problem, /https:|rust-learning|1\.0\.0/, 'the content is not quoted');
  t.same(
    checkHistory(text.slice(0, text.lastIndexOf(']')), key.publicKey),
    { ok: false, problem: 'not valid JSON at line 5, column 1: a closing ] was expected (a truncated or hand-edited file?)' },
    'only the closing bracket missing'
  );
  t.same(checkHistory('', key.publicKey), { ok: false, problem: 'not valid JSON: the file is empty (a truncated or hand-edited file?)' });
});

t.test('a file that is not a JSON array is refused', async (t) => {
  for (const text of ['{}', JSON.stringify(e1), 'null', '"[]"', '3']) {
    t.same(checkHistory(text, key.publicKey), { ok: false, problem: 'not a JSON array of entries' }, text.slice(0, 20));
  }
});

t.test('an empty history is refused: sign to make its first entry', async (t) => {
  t.same(checkHistory('[]', key.publicKey), { ok: false, problem: 'no entries: sign the registry to make its first' });
  t.same(checkHistory(formatHistory([]), key.publicKey), { ok: false, problem: 'no entries: sign the registry to make its first' });
});

t.test('an entry signed by another key is refused, naming that key and the one expected', async (t) => {
  const mixed = chain([STEPS[0]!, { ...STEPS[1]!, key: other }, STEPS[2]!]);
  t.equal(mixed[1]!.publicKey, other.publicKey);
  t.equal(problemWith(mixed), `entry 2 (version 1.1.0): signed by another key (${other.publicKey}, expected ${key.publicKey})`);
});

t.test('a history checked against another trusted key is refused at its first entry', async (t) => {
  t.equal(problemWith(entries, other.publicKey), `entry 1 (version 1.0.0): signed by another key (${key.publicKey}, expected ${other.publicKey})`);
  const stranger = otherPublicKey();
  t.equal(problemWith(entries, stranger), `entry 1 (version 1.0.0): signed by another key (${key.publicKey}, expected ${stranger})`);
  t.same(checkHistory(formatHistory(chain(STEPS.map((s) => ({ ...s, key: other })))), other.publicKey).ok, true, 'the other key checks its own history');
});

t.test('a version that does not increase is refused, even when properly signed and linked', async (t) => {
  const steps = (versions: string[]) => versions.map((version, i) => ({ version, date: `2026-0${i + 1}-01T00:00:00Z` }));
  t.equal(problemWith(chain(steps(['1.0.0', '1.1.0', '1.0.0']))), 'entry 3 (version 1.0.0): version does not increase from 1.1.0');
  t.equal(problemWith(chain(steps(['1.0.0', '1.0.0']))), 'entry 2 (version 1.0.0): version does not increase from 1.0.0', 'the same version');
  t.equal(problemWith(chain(steps(['2.0.0', '2.0.0-rc.1']))), 'entry 2 (version 2.0.0-rc.1): version does not increase from 2.0.0', 'a pre-release of a released version');
  t.equal(problemWith(chain(steps(['1.0.0+a', '1.0.0+b']))), 'entry 2 (version 1.0.0+b): version does not increase from 1.0.0+a', 'build metadata is no new version');
  t.equal(problemWith(chain(steps(['1.9.0', '1.10.0', '10.0.0']))), 'ok', 'compared as semantic versions, not as text');
  t.equal(problemWith(chain(steps(['1.0.0', '2.0.0-rc.1', '2.0.0']))), 'ok', 'a pre-release, then its release');
});

t.test('a date going back is refused; the same date is accepted', async (t) => {
  const dated = chain([STEPS[0]!, STEPS[1]!, { ...STEPS[2]!, date: '2026-01-31T23:59:59Z' }]);
  t.equal(problemWith(dated), 'entry 3 (version 2.0.0): dated before entry 2');
  const sameDay = chain([STEPS[0]!, { ...STEPS[1]!, date: STEPS[0]!.date }]);
  t.equal(problemWith(sameDay), 'ok', 'two versions signed in the same second');
  const oneSecond = chain([{ ...STEPS[0]!, date: '2026-01-01T00:00:01Z' }, { ...STEPS[1]!, date: '2026-01-01T00:00:00Z' }]);
  t.equal(problemWith(oneSecond), 'entry 2 (version 1.1.0): dated before entry 1', 'by one second');
});

t.test('a malformed entry is refused as not a history entry, even when properly signed and linked', async (t) => {
  const cases: [string, Step, string][] = [
    ['missing changes', { ...STEPS[1]!, extra: { changes: undefined } }, 'entry 2 (version 1.1.0)'],
    ['missing sha256', { ...STEPS[1]!, extra: { sha256: undefined } }, 'entry 2 (version 1.1.0)'],
    ['missing version', { ...STEPS[1]!, extra: { version: undefined } }, 'entry 2'],
    ['a version that is not a string', { ...STEPS[1]!, extra: { version: 110 } }, 'entry 2'],
    ['a version that is not semantic', { ...STEPS[1]!, version: 'v1.1.0' }, 'entry 2 (version v1.1.0)'],
    ['February 30th', { ...STEPS[1]!, date: '2026-02-30T00:00:00Z' }, 'entry 2 (version 1.1.0)'],
    ['hour 24', { ...STEPS[1]!, date: '2026-02-01T24:00:00Z' }, 'entry 2 (version 1.1.0)'],
    ['a date with no time zone', { ...STEPS[1]!, date: '2026-02-01T00:00:00' }, 'entry 2 (version 1.1.0)'],
    ['a date with milliseconds', { ...STEPS[1]!, date: '2026-02-01T00:00:00.000Z' }, 'entry 2 (version 1.1.0)'],
    ['a date with an offset', { ...STEPS[1]!, date: '2026-02-01T00:00:00+00:00' }, 'entry 2 (version 1.1.0)'],
    ['a date only', { ...STEPS[1]!, date: '2026-02-01' }, 'entry 2 (version 1.1.0)'],
    ['an upper-case digest', { ...STEPS[1]!, extra: { sha256: 'A'.repeat(64) } }, 'entry 2 (version 1.1.0)'],
    ['a short digest', { ...STEPS[1]!, extra: { sha256: 'a'.repeat(63) } }, 'entry 2 (version 1.1.0)'],
    ['changes that are not a list', { ...STEPS[1]!, extra: { changes: {} } }, 'entry 2 (version 1.1.0)'],
    ['a change of no known shape', { ...STEPS[1]!, changes: [{ change: 'renamed', category: 'x' } as unknown as Change] }, 'entry 2 (version 1.1.0)'],
    ['a change with an extra field', { ...STEPS[1]!, changes: [{ change: 'added', category: 'x', why: 'y' } as unknown as Change] }, 'entry 2 (version 1.1.0)'],
    ['a change naming no field', { ...STEPS[1]!, changes: [{ change: 'changed', category: 'x', fields: [] }] }, 'entry 2 (version 1.1.0)'],
    ['a source ranked 4', { ...STEPS[1]!, changes: [{ change: 'added', category: 'x', rank: 4, url: 'https://a.example/' }] }, 'entry 2 (version 1.1.0)'],
    ['a category that is not a slug', { ...STEPS[1]!, changes: [{ change: 'added', category: 'Not A Slug' }] }, 'entry 2 (version 1.1.0)'],
    ['an endorsement that is not a key', { ...STEPS[1]!, changes: [{ change: 'added', endorsement: 'not-a-key', name: 'N' }] }, 'entry 2 (version 1.1.0)'],
  ];
  for (const [what, step, where] of cases) {
    t.equal(problemWith(chain([STEPS[0]!, step])), `${where}: ${NOT_AN_ENTRY}`, what);
  }
  t.equal(problemWith([e1, { ...e2, comment: 'hello' } as HistoryEntry]), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, 'an extra field');
  t.equal(problemWith([e1, { ...e2, note: 'two\nlines' }]), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, 'a note with a control character (issue 32)');
  t.equal(problemWith([e1, { ...e2, note: 'x'.repeat(201) }]), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, 'a note over 200 characters');
  t.equal(problemWith([e1, { ...e2, previous: 'not a hash' }]), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, 'a previous that is no hash');
  t.equal(problemWith([{ ...e1, publicKey: 'not-a-key' }]), `entry 1 (version 1.0.0): ${NOT_AN_ENTRY}`, 'a public key that is no key');
  for (const raw of [null, 'entry', 7, [], [e1]]) {
    t.equal(problemWith([e1, raw]), `entry 2: ${NOT_AN_ENTRY}`, `an entry that is ${JSON.stringify(raw)?.slice(0, 20)}`);
  }
});

t.test('an entry whose version is very long is named by its place alone', async (t) => {
  const long = `2.0.0-${'a'.repeat(80)}`;
  const dated = chain([STEPS[0]!, { version: long, date: '2025-12-31T00:00:00Z' }]);
  t.equal(problemWith(dated), 'entry 2: dated before entry 1', 'not quoted');
  const atLimit = `2.0.0-${'a'.repeat(74)}`;
  t.equal(atLimit.length, 80);
  t.equal(problemWith(chain([STEPS[0]!, { version: atLimit, date: '2025-12-31T00:00:00Z' }])), `entry 2 (version ${atLimit}): dated before entry 1`, '80 characters are quoted');
});

t.test('a signature that is not base64 of 64 bytes is refused', async (t) => {
  const withSignature = (signature: string) => problemWith([e1, { ...e2, signature }]);
  t.equal(withSignature(Buffer.alloc(63, 1).toString('base64')), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, '63 bytes');
  t.equal(withSignature(Buffer.alloc(65, 1).toString('base64')), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, '65 bytes');
  t.equal(withSignature(`${'!'.repeat(86)}==`), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, 'not base64');
  t.equal(withSignature(Buffer.from(e2.signature, 'base64').toString('base64url')), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, 'base64url, unpadded');
  t.equal(withSignature(''), `entry 2 (version 1.1.0): ${NOT_AN_ENTRY}`, 'empty');
  // The last character carries 2 bits of the signature and 4 of padding: setting a padding bit gives
  // the same 64 bytes under another spelling, which a signed file never has.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const last = alphabet.indexOf(e2.signature[85]!);
  const respelled = `${e2.signature.slice(0, 85)}${alphabet[(last & 0b110000) | 0b0001]}==`;
  t.same(Buffer.from(respelled, 'base64'), Buffer.from(e2.signature, 'base64'), 'the same bytes');
  t.equal(withSignature(respelled), 'entry 2 (version 1.1.0): its signature does not verify (the entry was altered after signing)');
});

t.test('entryHash is the SHA-256 of the RFC 8785 entry, and changes when any field changes, the signature included', async (t) => {
  t.equal(entryHash(e2), sha256Hex(canonicalBytes(e2)));
  t.match(entryHash(e2), /^[0-9a-f]{64}$/);
  const reordered = Object.fromEntries(Object.entries(e2).reverse()) as unknown as HistoryEntry;
  t.not(JSON.stringify(reordered), JSON.stringify(e2), 'the fields really come in another order');
  t.equal(entryHash(reordered), entryHash(e2), 'the order of the fields does not matter');
  const variants: [keyof HistoryEntry, unknown][] = [
    ['version', '1.1.1'],
    ['date', '2026-02-01T00:00:01Z'],
    ['sha256', sha256Hex(Buffer.from('x'))],
    ['previous', null],
    ['changes', []],
    ['publicKey', other.publicKey],
    ['signature', signEntry({ ...unsigned(e2), date: '2026-02-01T00:00:01Z' }, key).signature],
  ];
  t.equal(variants.length, Object.keys(e2).length, 'every field');
  const hashes = new Set([entryHash(e2)]);
  for (const [field, value] of variants) {
    t.not(value, e2[field], `${field} really differs`);
    const hash = entryHash({ ...e2, [field]: value });
    t.not(hash, entryHash(e2), field);
    hashes.add(hash);
  }
  t.equal(hashes.size, variants.length + 1, 'all different');
});

t.test('lastChangedDates maps each category to the date of the newest entry naming it', async (t) => {
  const dates = lastChangedDates(entries);
  const expected = new Map<string, string>();
  for (const slug of Object.keys(shipped.categories)) expected.set(slug, '2026-01-01T00:00:00Z');
  expected.set('rust-learning', '2026-02-01T00:00:00Z');
  expected.set('threat-modeling', '2026-03-01T00:00:00Z');
  expected.set('zig-learning', '2026-03-01T00:00:00Z');
  t.same(Object.fromEntries(dates), Object.fromEntries(expected));
  t.equal(dates.get('rust-learning'), '2026-02-01T00:00:00Z', 'a source change counts for its category');
  t.equal(dates.get('bitcoin-node-setup'), '2026-01-01T00:00:00Z', 'unchanged since the first');
  t.equal(dates.size, Object.keys(shipped.categories).length + 1, 'curator changes name no category');
  t.same(Object.fromEntries(lastChangedDates([])), {}, 'no history, no dates');
  const endorsed = chain([{ ...STEPS[0]!, changes: [{ change: 'added', endorsement: otherPublicKey(), name: 'N' }, { change: 'changed', curator: ['name'] }] }]);
  t.equal(lastChangedDates(endorsed).size, 0, 'endorsements and the curator are no categories');
});

t.test('every kind of change registryChanges makes is accepted in a signed history', async (t) => {
  const endorser = otherPublicKey();
  const rust = shipped.categories['rust-learning']!;
  const changedRegistry = {
    ...shipped,
    curator: { name: 'New curators', pubkey: key.publicKey },
    endorsements: [{ pubkey: endorser, url: 'https://e.example/', name: 'E', since: '2026-01-01' }],
    categories: {
      ...shipped.categories,
      'rust-learning': { ...rust, name: 'Rust', sources: [{ ...rust.sources[1]!, rank: 1 as const }, { ...rust.sources[0]!, rank: 2 as const }, { ...rust.sources[2]!, why: 'new' }] },
    },
  };
  const changes = registryChanges(shipped, changedRegistry);
  const kinds = new Set(changes.map((c) => `${c.change} ${Object.keys(c).filter((k) => k !== 'change').sort().join(' ')}`));
  t.same([...kinds].sort(), [
    'added category rank url',
    'added endorsement name',
    'changed category fields',
    'changed category fields rank url',
    'changed curator',
    'removed category rank url',
  ]);
  const withRemoval = registryChanges({ ...changedRegistry, categories: { ...changedRegistry.categories, 'zig-learning': rust } }, { ...shipped, endorsements: [] });
  const history = chain([
    { version: '1.0.0', date: '2026-01-01T00:00:00Z', changes: FIRST_CHANGES },
    { version: '1.1.0', date: '2026-01-02T00:00:00Z', changes },
    { version: '1.2.0', date: '2026-01-03T00:00:00Z', changes: withRemoval },
  ]);
  t.ok(withRemoval.some((c) => c.change === 'removed' && 'category' in c && !('rank' in c)), 'a category removed');
  t.ok(withRemoval.some((c) => c.change === 'removed' && 'endorsement' in c), 'an endorsement removed');
  t.same(checkHistory(formatHistory(history), key.publicKey), { ok: true, entries: history });
});
