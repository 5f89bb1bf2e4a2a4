/**
 * npm run bench:probe: can one client tell, from how fast it is answered, whether another client
 * asked a question (issue 31, finding 10)? A real server (dist/) endorsing 60 peers (the registries
 * of test/fixtures/registries, each signed with a key of its own), over HTTP on loopback: client A
 * asks a made-up question; then client B asks the same question, and another nobody asked. One
 * probe is classified by a threshold midway between the two medians; 50% is chance.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { projectRoot } from '../../src/project.js';
import { generateKey } from '../../src/provenance/keys.js';
import type { Endorsement, Registry } from '../../src/registry/types.js';
import { call, documentsOf, peerServer, startServer } from '../lib/bench-server.js';

const root = projectRoot();
const PEERS = 60;
const PROBES = Number(process.env.PROBES ?? 300);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const folders = readdirSync(join(root, 'test/fixtures/registries')).filter((f) => f.startsWith('blind-'));
const served = await peerServer();
const endorsements: Endorsement[] = [];
for (let i = 0; i < PEERS; i++) {
  const key = generateKey().key;
  const registry = JSON.parse(readFileSync(join(root, 'test/fixtures/registries', folders[i % folders.length]!, 'registry.json'), 'utf8')) as Registry;
  await served.set(`/p/${i}`, documentsOf({ ...registry, curator: { ...registry.curator, pubkey: key.publicKey } }, key));
  endorsements.push({ pubkey: key.publicKey, url: `${served.url}/p/${i}`, name: `peer ${i}`, since: '2026-11-28' });
}
const server = await startServer(endorsements, { RATE_LIMIT_MAX: '0' });
const timed = async (query: string, client: string) => {
  const start = performance.now();
  await call(server.address, 'get_federated_sources', query, client);
  return performance.now() - start;
};
const words = ['sourdugh', 'telescpe', 'knittng', 'mortage', 'pensoin', 'bicycel', 'vacume', 'plumbng', 'gardning', 'kombuchaa'];
const question = (i: number, salt: string) => `how to fix my ${words[i % 10]}${salt}${i} ${words[(i + 3) % 10]} quickly`;
for (let i = 0; i < 20; i++) await timed(question(i, 'warm'), '10.9.0.1');
const asked: number[] = [];
const unasked: number[] = [];
for (let i = 0; i < PROBES; i++) {
  await timed(question(i, 'a'), '10.1.0.1');
  asked.push(await timed(question(i, 'a'), '10.2.0.1'));
  await timed(question(i, 'c'), '10.1.0.1');
  unasked.push(await timed(question(i, 'b'), '10.2.0.1'));
}
const cut = (median(asked) + median(unasked)) / 2;
const right = asked.filter((ms) => ms < cut).length + unasked.filter((ms) => ms >= cut).length;
console.log(`# npm run bench:probe (${new Date().toISOString().slice(0, 10)}, Node ${process.version}), ${PEERS} peers, ${PROBES} probes each way`);
console.log(
  `a question another client asked: median ${median(asked).toFixed(2)} ms; one nobody asked: ${median(unasked).toFixed(2)} ms; ` +
    `one probe tells them apart ${((100 * right) / (asked.length + unasked.length)).toFixed(0)}% of the time (50% is chance)`
);
server.child.kill('SIGTERM');
served.stop();
