/**
 * npm run bench:federation: a federation of 100 peers with 100 categories each (10,000
 * categories). One loopback HTTP server serves every peer's registry, signature and history
 * under its own path; the Federation fetches and verifies them all, as a server does after
 * start-up, while the event loop's delay is sampled. Then get_federated_sources answers queries
 * it has never seen (one matcher lookup per peer), and the heap the copies hold is measured.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { prepareCatalog } from '../src/catalog.js';
import { Federation } from '../src/federation/federation.js';
import { getFederatedSources } from '../src/mcp/tools/get-federated-sources.js';
import { projectRoot } from '../src/project.js';
import { canonicalBytes } from '../src/provenance/canonical.js';
import { generateKey } from '../src/provenance/keys.js';
import { signatureDocument, signatureDocumentBytes, signRegistry } from '../src/provenance/signature.js';
import type { Endorsement, Registry } from '../src/registry/types.js';
import { generateRegistry, random } from './lib/generated-registry.js';

const PEERS = Number(process.env.PEERS ?? 100);
const CATEGORIES = Number(process.env.CATEGORIES ?? 100);
const QUERIES = 300;
const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

// Every peer: its own key, its own generated registry (seeded apart), signed as a server signs.
const documents = new Map<string, { registry: Buffer; signature: Buffer; history: Buffer }>();
const endorsements: Endorsement[] = [];
const peerQueries: string[] = [];
const setupStart = performance.now();
for (let i = 0; i < PEERS; i++) {
  const { key } = generateKey();
  const { registry: generated, queries } = generateRegistry(CATEGORIES, 1000 + i);
  const registry: Registry = { ...generated, curator: { name: `Peer ${i}`, pubkey: key.publicKey } };
  const signed = signRegistry(registry, key, 'server');
  documents.set(`/p/${i}`, { registry: canonicalBytes(registry), signature: signatureDocumentBytes(signatureDocument(signed)), history: Buffer.from('[]\n') });
  endorsements.push({ pubkey: key.publicKey, url: '', name: `Peer ${i}`, since: '2026-11-26' });
  peerQueries.push(...queries);
}
const setupMs = performance.now() - setupStart;

const server = createServer((req, res) => {
  const m = /^(\/p\/\d+)\/registry(\/signature|\/history)?$/.exec(req.url ?? '');
  const docs = m === null ? undefined : documents.get(m[1]!);
  if (docs === undefined) {
    res.statusCode = 404;
    res.end();
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.end(m![2] === '/signature' ? docs.signature : m![2] === '/history' ? docs.history : docs.registry);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
endorsements.forEach((e, i) => Object.assign(e, { url: `${base}/p/${i}` }));

const heapBefore = heapMb();
const federation = new Federation({ refreshMs: 3_600_000, cacheDir: undefined, allowLoopbackHttp: true, matchThreshold: 0.4 });
federation.setPeers(endorsements);
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const refreshStart = performance.now();
federation.start();
while (federation.peers().some((p) => p.copy === undefined && p.lastError === undefined)) await new Promise((resolve) => setTimeout(resolve, 20));
const refreshMs = performance.now() - refreshStart;
// Then the shared spelling index over every copy, rebuilt once the copies stop changing.
await federation.idle();
const idleMs = performance.now() - refreshStart;
delay.disable();
federation.stop();
server.close();
const failed = federation.peers().filter((p) => p.copy === undefined);
const heapAfter = heapMb();

// Queries never seen: each peer's own query forms, mixed with words from nowhere, never repeated.
const catalog = await prepareCatalog(join(projectRoot(), 'registry.json'), { mode: 'ephemeral', key: generateKey(true).key }, 0.4);
const next = random(7);
const queries = Array.from({ length: QUERIES }, (_, i) => `${peerQueries[Math.floor(next() * peerQueries.length)]!} ${i}`);
const times: number[] = [];
let answered = 0;
for (const query of queries) {
  const start = performance.now();
  const result = getFederatedSources.run({ query }, catalog, { federation });
  times.push(performance.now() - start);
  if (!result.isError) answered++;
}

const ms = (n: number) => `${n.toFixed(2)} ms`;
console.log(`federation of ${PEERS} peers x ${CATEGORIES} categories (${PEERS * CATEGORIES} categories), generated and signed in ${ms(setupMs)}`);
console.log(`all peers fetched, verified and indexed in ${ms(refreshMs)} (${failed.length} failed${failed.length > 0 ? `: ${failed[0]!.lastError?.reason}` : ''})`);
console.log(`shared spelling index over every copy built by ${ms(idleMs)}`);
console.log(`event-loop delay while they refreshed: p50 ${ms(delay.percentile(50) / 1e6)}, p99 ${ms(delay.percentile(99) / 1e6)}, max ${ms(delay.max / 1e6)}`);
console.log(`heap held by the peer copies: ${gc ? `${(heapAfter - heapBefore).toFixed(1)} MB` : 'not measured (run with --expose-gc)'}`);
console.log(`get_federated_sources, ${QUERIES} queries never seen: median ${ms(median(times))}, p90 ${ms(percentile(times, 0.9))}, max ${ms(Math.max(...times))}; ${answered} answered`);
