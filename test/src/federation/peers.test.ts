import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Federation, type FederationOptions, type PeerEvent } from '../../../src/federation/federation.js';
import type { Endorsement } from '../../../src/registry/types.js';
import { fakeServer } from '../../helpers/fake-server.js';
import { newKey, peerDocuments, peerRegistry, servePeer } from '../../helpers/peers.js';
import { waitFor } from '../../helpers/wait.js';

const endorse = (pubkey: string, url: string, name = 'Peer'): Endorsement => ({ pubkey, url, name, since: '2026-11-26' });

/** A federation of one or more peers, started, with its events collected; stopped when the test ends. */
function federation (t: { teardown(fn: () => unknown): void }, peers: Endorsement[], options: Partial<FederationOptions> = {}) {
  const events: PeerEvent[] = [];
  const f = new Federation({
    refreshMs: 60_000,
    cacheDir: undefined,
    allowLoopbackHttp: true,
    matchThreshold: 0.4,
    onEvent: (e) => events.push(e),
    ...options,
  });
  f.setPeers(peers);
  t.teardown(() => f.stop());
  return { f, events };
}

async function settle (f: Federation, done: (f: Federation) => boolean): Promise<void> {
  await waitFor(() => done(f));
}
const reasonOf = (f: Federation) => f.peers()[0]!.lastError?.reason;

t.test('each bad reply is refused with its reason: status, content type, redirects, time, size', async (t) => {
  const key = newKey();
  const docs = peerDocuments(peerRegistry(key), key);
  const cases: [string, Parameters<typeof fakeServer>[1], RegExp, Partial<FederationOptions>?][] = [
    ['HTTP 500', (_req, res) => { res.statusCode = 500; res.end(); }, /^HTTP 500$/],
    ['HTML', (_req, res) => { res.setHeader('content-type', 'text/html'); res.end('<html>'); }, /^content type "text\/html", not JSON$/],
    ['no content type', (_req, res) => { res.removeHeader('content-type'); res.end(); }, /^content type "none", not JSON$/],
    ['a redirect loop', (req, res) => { res.statusCode = 302; res.setHeader('location', req.url!); res.end(); }, /^more than 3 redirects$/],
    ['a redirect to another host', (_req, res) => { res.statusCode = 302; res.setHeader('location', 'https://10.1.2.3:8443/registry'); res.end(); }, /^redirected to another origin$/],
    ['a signature document over 16 KiB', (req, res) => { res.setHeader('content-type', 'application/json'); res.end(req.url === '/registry/signature' ? `[${'['.repeat(20_000)}` : '{}'); }, /^larger than 16384 bytes$/],
    ['a declared length over the cap', (_req, res) => { res.setHeader('content-type', 'application/json'); res.setHeader('content-length', String(6 * 1024 * 1024)); res.end(); }, /^larger than 5242880 bytes$/],
    ['a body that never ends', (_req, res) => { res.setHeader('content-type', 'application/json'); res.write('{'); }, /^no answer within 300 ms$/, { timeoutMs: 300 }],
  ];
  for (const [what, handler, reason, options] of cases) {
    const url = await fakeServer(t, handler);
    const { f, events } = federation(t, [endorse(key.publicKey, url)], options);
    f.start();
    await settle(f, (x) => x.peers()[0]!.lastError !== undefined);
    t.match(reasonOf(f), reason, what);
    t.equal(f.peers()[0]!.state, 'unavailable', `${what}: unavailable`);
    t.match(events[0], { kind: 'failed', peer: { pubkey: key.publicKey } }, `${what}: logged with the peer`);
    f.stop();
  }
  // A redirect within the peer's own origin is followed.
  const moved = await fakeServer(t, (req, res) => {
    if (!req.url!.startsWith('/v2/')) {
      res.statusCode = 301;
      res.setHeader('location', `/v2${req.url}`);
      res.end();
      return;
    }
    const path = req.url!.slice(3);
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(path === '/registry/signature' ? docs.signature : path === '/registry/history' ? docs.history : docs.registry);
  });
  const { f } = federation(t, [endorse(key.publicKey, moved)]);
  f.start();
  await settle(f, (x) => x.peers()[0]!.state === 'fresh');
  t.equal(f.peers()[0]!.state, 'fresh', 'a redirect within its own origin is followed');
});

t.test('a failing peer backs off instead of being asked on every tick', async (t) => {
  let asked = 0;
  const url = await fakeServer(t, (_req, res) => { asked++; res.statusCode = 503; res.end(); });
  const { f } = federation(t, [endorse(newKey().publicKey, url)]);
  f.start();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // Three documents per attempt; the scheduler looks every 250 ms, the first retry waits 5 s.
  t.equal(asked, 3, 'one attempt in 1.5 s');
});

t.test('states come from the age of the last good copy; a refusal keeps the last good copy in use', async (t) => {
  const key = newKey();
  let docs = peerDocuments(peerRegistry(key), key);
  const url = await servePeer(t, () => docs);
  let now = Date.parse('2026-11-26T10:00:00Z');
  const { f, events } = federation(t, [endorse(key.publicKey, url)], { refreshMs: 1000, now: () => now });
  f.start();
  await settle(f, (x) => x.peers()[0]!.state === 'fresh');
  t.equal(f.peers()[0]!.state, 'fresh');
  t.match(events, [{ kind: 'updated', version: '1.0.0' }]);
  now += 3000;
  t.equal(f.peers()[0]!.state, 'fresh', 'within three refresh periods');
  now += 1;
  t.equal(f.peers()[0]!.state, 'stale', 'past three refresh periods');
  // The peer now serves a registry signed by someone else: refused, the old copy stays.
  const other = newKey();
  docs = peerDocuments(peerRegistry(other), other);
  await settle(f, (x) => x.peers()[0]!.lastError !== undefined);
  t.match(reasonOf(f), /^signed by another key than the endorsed one/);
  t.equal(f.peers()[0]!.copy?.version, '1.0.0', 'the last good copy stays in use');
  t.equal(f.peers()[0]!.state, 'stale');
  t.match(events.at(-1), { kind: 'refused', serving: true }, 'and the event says a copy is still served');
});

t.test('disk copies are verified again when read; a tampered one is refused', async (t) => {
  const key = newKey();
  const docs = peerDocuments(peerRegistry(key), key);
  const url = await servePeer(t, () => docs);
  const cacheDir = await mkdtemp(join(tmpdir(), '3gs-cache-'));
  const first = federation(t, [endorse(key.publicKey, url)], { cacheDir });
  first.f.start();
  await settle(first.f, (x) => x.peers()[0]!.state === 'fresh');
  first.f.stop();
  // The copy is written whole then renamed: wait for the renamed file, not the temporary one.
  await waitFor(async () => (await readdir(cacheDir)).includes(`${key.publicKey}.json`));
  t.same(await readdir(cacheDir), [`${key.publicKey}.json`], 'one file per peer, named by its key');

  const reread = federation(t, [endorse(key.publicKey, url)], { cacheDir });
  await reread.f.loadCache();
  t.equal(reread.f.peers()[0]!.state, 'fresh', 'read back without asking the peer');
  const moved = federation(t, [endorse(key.publicKey, 'http://127.0.0.1:9/')], { cacheDir });
  await moved.f.loadCache();
  t.equal(moved.f.peers()[0]!.state, 'unavailable', 'a copy kept for another URL is not used');

  const file = join(cacheDir, `${key.publicKey}.json`);
  const kept = JSON.parse(await readFile(file, 'utf8')) as { registry: string };
  t.same(Buffer.from(kept.registry, 'base64'), docs.registry, 'the bytes fetched are kept, not a decoding of them');
  kept.registry = Buffer.from(Buffer.from(kept.registry, 'base64').toString('utf8').replace('Amateur Radio', 'Amateur Rodeo')).toString('base64');
  await writeFile(file, JSON.stringify(kept));
  const tampered = federation(t, [endorse(key.publicKey, url)], { cacheDir });
  await tampered.f.loadCache();
  t.equal(tampered.f.peers()[0]!.state, 'unavailable');
  t.match(tampered.events, [{ kind: 'refused', reason: /^disk copy: its registry does not match its signature document/ }]);
});

t.test('setPeers follows the endorsements: new peers join, dropped ones go, a moved one starts afresh', async (t) => {
  const [a, b] = [newKey(), newKey()];
  const { f } = federation(t, [endorse(a.publicKey, 'http://127.0.0.1:1/', 'A')]);
  f.setPeers([endorse(a.publicKey, 'http://127.0.0.1:1/', 'A renamed'), endorse(b.publicKey, 'http://127.0.0.1:2/', 'B')]);
  t.same(f.peers().map((p) => p.endorsement.name), ['A renamed', 'B']);
  f.setPeers([endorse(b.publicKey, 'http://127.0.0.1:2/', 'B')]);
  t.same(f.peers().map((p) => p.endorsement.name), ['B']);
});

t.test('a peer must move forward: an older version, another registry under the same version, or an abandoned branch are refused', async (t) => {
  const key = newKey();
  const version = (v: string, name = 'Example peer curator') => peerDocuments({ ...peerRegistry(key), version: v, curator: { name, pubkey: key.publicKey } }, key);
  let docs = version('1.1.0');
  const url = await servePeer(t, () => docs);
  let now = Date.now();
  const { f, events } = federation(t, [endorse(key.publicKey, url)], { refreshMs: 1000, now: () => now });
  f.start();
  await settle(f, (x) => x.peers()[0]!.state === 'fresh');
  const matcher = f.peers()[0]!.copy!.matcher;
  // Unchanged: the next refresh compares, and keeps what it had.
  now += 1200;
  await settle(f, (x) => (x.peers()[0]!.lastSuccess ?? 0) >= now);
  t.equal(f.peers()[0]!.copy!.matcher, matcher, 'an unchanged peer is not verified and indexed again');
  t.equal(events.filter((e) => e.kind === 'updated').length, 1, 'and not reported as updated');
  const refusals: [string, ReturnType<typeof version>, RegExp][] = [
    ['an older version', version('1.0.0'), /^an older version \(1\.0\.0\) than the one in use \(1\.1\.0\)$/],
    ['the same version, other content', version('1.1.0', 'Someone else'), /^another registry under the version in use \(1\.1\.0\)$/],
  ];
  for (const [what, next, reason] of refusals) {
    docs = next;
    const before = events.length;
    now += 1200;
    await settle(f, () => events.length > before);
    t.match(reasonOf(f), reason, what);
    t.equal(f.peers()[0]!.copy!.version, '1.1.0', `${what}: the copy in use stays`);
  }
});
