/**
 * npm run bench:hostile: what hostile peers cost a server. Peers' registries are crafted at the
 * peer limits (scripts/lib/hostile-registries.ts: full spelling buckets, phrases and not-about
 * entries flooding shared first words, 1,000 categories near 5 MiB) and signed with their keys.
 *
 * 1. In this process, a Federation fetches, verifies and indexes them, then sees a new version of
 *    each, then an older one (a rollback), while the event loop's delay is sampled.
 * 2. A real server process (the built dist/, as npm start runs it) endorses either the hostile
 *    peers or one benign peer. Over HTTP: the median of ordinary get_federated_sources queries and
 *    of each crafted query; RSS after 10,000 crafted queries, against the benign case; and, with
 *    one client sending crafted queries at its rate limit, what a second client's get_sources gets.
 *
 * The peers are served by a child process, so that serving them does not count against the
 * event loop measured here. BENCH_QUICK=1 runs a shorter version.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Federation, type PeerEvent } from '../src/federation/federation.js';
import { projectRoot } from '../src/project.js';
import { generateKey } from '../src/provenance/keys.js';
import type { Endorsement, Registry } from '../src/registry/types.js';
import { call, documentsOf, peerServer, startServer } from './lib/bench-server.js';
import { generateRegistry } from './lib/generated-registry.js';
import { craftedQueries, ordinaryOfSameSize, phraseFlood, spellingFlood } from './lib/hostile-registries.js';

const root = projectRoot();
const quick = process.env.BENCH_QUICK === '1';
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** 1,000 categories, padded towards the 5 MiB a peer may send. */
function bigRegistry (pubkey: string, version: string): Registry {
  const { registry } = generateRegistry(1000, 7);
  const categories = Object.fromEntries(Object.entries(registry.categories).map(([slug, c]) => [slug, { ...c, description: `${c.description} ${'lorem ipsum dolor '.repeat(150)}` }]));
  return { ...registry, version, curator: { name: 'Big', pubkey }, categories };
}

const kinds = {
  spelling: (pubkey: string, version: string) => spellingFlood(pubkey, undefined, version),
  phrases: (pubkey: string, version: string) => phraseFlood(pubkey, undefined, 32, version),
  big: (pubkey: string, version: string) => bigRegistry(pubkey, version),
};
const peers = Object.entries(kinds).map(([name, make]) => ({ name, key: generateKey().key, make }));

console.log(`# npm run bench:hostile (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${quick ? 'quick' : 'full'})`);
const served = await peerServer();
const sizes: string[] = [];
// Every version is made and signed before anything is measured: making them is the bench's work.
const versions = peers.map((p) => ({ first: documentsOf(p.make(p.key.publicKey, '1.0.0'), p.key), next: documentsOf(p.make(p.key.publicKey, '1.1.0'), p.key) }));
for (const [i, p] of peers.entries()) {
  sizes.push(`${p.name} ${(versions[i]!.first.registry.length / 1024 / 1024).toFixed(2)} MiB`);
  await served.set(`/p/${i}`, versions[i]!.first);
}
console.log(`hostile peers at the limits: ${sizes.join(', ')}`);

// 1. The event loop while hostile copies are fetched, verified, indexed, replaced and rolled back.
{
  const events: PeerEvent[] = [];
  let now = Date.now();
  const endorsements: Endorsement[] = peers.map((p, i) => ({ pubkey: p.key.publicKey, url: `${served.url}/p/${i}`, name: p.name, since: '2026-11-26' }));
  const federation = new Federation({
    refreshMs: 1000,
    cacheDir: undefined,
    allowLoopbackHttp: true,
    matchThreshold: 0.45,
    onEvent: (e) => events.push(e),
    now: () => now,
  });
  federation.setPeers(endorsements);
  const waitFor = async (count: number) => {
    for (let i = 0; i < 1200 && events.length < count; i++) await sleep(50);
  };
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  federation.start();
  await waitFor(peers.length);
  const firstMs = performance.now() - started;
  // A new version of each, then the first one again (a rollback): both are fetched in full.
  for (const i of peers.keys()) await served.set(`/p/${i}`, versions[i]!.next);
  now += 2000;
  await waitFor(2 * peers.length);
  for (const i of peers.keys()) await served.set(`/p/${i}`, versions[i]!.first);
  now += 2000;
  await waitFor(3 * peers.length);
  delay.disable();
  federation.stop();
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(`\n== 1. event loop while ${peers.length} hostile copies are fetched, verified and indexed, replaced by a new version, then rolled back`);
  console.log(`outcomes: ${events.map((e) => `${e.peer.name} ${e.kind}${e.kind === 'updated' ? ` ${e.version}` : `: ${e.reason}`}`).join('; ')}`);
  console.log(`first copies accepted in ${(firstMs / 1000).toFixed(2)} s; event-loop delay p50 ${ms(delay.percentile(50))} ms, p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms (target: p99 under 50 ms)`);
}

// 2. A real server, over HTTP.

/**
 * What a query costs the first time it is seen: the median of three runs, each made new by an
 * unknown word of its own (so nothing is remembered), which keeps a pause of the collector during
 * one run from being taken for the cost of the query.
 */
let fresh = 0;
async function costOf (address: string, query: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await call(address, 'get_federated_sources', `${query} zq${fresh++}`);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const ordinary = JSON.parse(await readFile(join(root, 'test/fixtures/queries.json'), 'utf8')).queries.map((q: { query: string }) => q.query).slice(0, quick ? 30 : 100) as string[];
const crafted = craftedQueries(quick ? 1000 : 10_000);
const hostileEndorsements = peers.map((p, i) => ({ pubkey: p.key.publicKey, url: `${served.url}/p/${i}`, name: p.name, since: '2026-11-26' }));
// The benign case: the same three peers, of the same sizes and as many distinct words and
// phrases, but ordinary: the difference between the two is what the crafting costs.
const benignEndorsements: Endorsement[] = [];
for (const [i, p] of peers.entries()) {
  const key = generateKey().key;
  const registry = p.name === 'spelling' ? ordinaryOfSameSize(key.publicKey, 'spelling') : p.name === 'phrases' ? ordinaryOfSameSize(key.publicKey, 'phrases') : bigRegistry(key.publicKey, '1.0.0');
  await served.set(`/benign/${i}`, documentsOf(registry, key));
  benignEndorsements.push({ pubkey: key.publicKey, url: `${served.url}/benign/${i}`, name: `ordinary like ${p.name}`, since: '2026-11-26' });
}

console.log('\n== 2. over HTTP, a server endorsing the hostile peers');
const hostile = await startServer(hostileEndorsements, { RATE_LIMIT_MAX: '0' });
// The same warm-up for both kinds of query, then each timed the same way.
for (const q of [...ordinary.slice(0, 20), ...craftedQueries(20).map((q, i) => `${q} warm${i}`)]) await call(hostile.address, 'get_federated_sources', q);
const ordinaryMs: number[] = [];
for (const q of ordinary) ordinaryMs.push(await costOf(hostile.address, q));
const craftedMs: number[] = [];
for (const q of craftedQueries(quick ? 30 : 100)) craftedMs.push(await costOf(hostile.address, q));
const medianMs = median(ordinaryMs);
const worst = Math.max(...craftedMs);
console.log(
  `each query the first time it is seen (median of 3 runs): ordinary queries median ${medianMs.toFixed(2)} ms, worst ${Math.max(...ordinaryMs).toFixed(2)} ms; ` +
    `crafted queries median ${median(craftedMs).toFixed(2)} ms, worst ${worst.toFixed(2)} ms = ${(worst / medianMs).toFixed(2)} x the ordinary median (target at most 5 x)`
);

const rssOf = async (server: Awaited<ReturnType<typeof startServer>>) => {
  const before = await server.rss();
  for (let i = 0; i < crafted.length; i += 8) await Promise.all(crafted.slice(i, i + 8).map((q) => call(server.address, 'get_federated_sources', q)));
  return { before, after: await server.rss() };
};
const hostileRss = await rssOf(hostile);
hostile.child.kill();
const benign = await startServer(benignEndorsements, { RATE_LIMIT_MAX: '0' });
const benignRss = await rssOf(benign);
benign.child.kill();
console.log(
  `RSS after ${crafted.length} crafted queries: hostile peers ${hostileRss.before.toFixed(0)} -> ${hostileRss.after.toFixed(0)} MB, ordinary peers of the same sizes and word counts ${benignRss.before.toFixed(0)} -> ${benignRss.after.toFixed(0)} MB: ` +
    `${(hostileRss.after - benignRss.after).toFixed(0)} MB more than the benign case (target at most 50 MB more)`
);

// 3. One client at the rate limit (600 a minute: 10 a second) sending crafted queries; another asking get_sources.
const limited = await startServer(hostileEndorsements);
const seconds = quick ? 5 : 15;
const statuses = new Map<number, number>();
const other = new Map<number, number>();
const until = performance.now() + seconds * 1000;
const flood = (async () => {
  for (let i = 0; performance.now() < until; i++) {
    const status = await call(limited.address, 'get_federated_sources', `${crafted[i % crafted.length]} r${i}`, '10.0.0.1');
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    await sleep(95);
  }
})();
const asker = (async () => {
  for (let i = 0; performance.now() < until; i++) {
    const status = await call(limited.address, 'get_sources', ordinary[i % ordinary.length]!, '10.0.0.2');
    other.set(status, (other.get(status) ?? 0) + 1);
    await sleep(200);
  }
})();
await Promise.all([flood, asker]);
limited.child.kill();
const show = (m: Map<number, number>) => [...m].sort().map(([s, n]) => `${n} x ${s}`).join(', ');
console.log(`\n== 3. for ${seconds} s one client sends crafted queries at its rate limit, another asks get_sources`);
console.log(`the flooding client got: ${show(statuses)}; the other client got: ${show(other)} (target: no 503 for the other client)`);
served.stop();
process.exit(0);
