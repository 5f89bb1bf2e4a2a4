/**
 * What the HTTP benchmarks share: signed peer documents, a peers' web server in a child process,
 * a built server process endorsing given peers, and one tools/call over HTTP.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot } from '../../src/project.js';
import { canonicalBytes } from '../../src/provenance/canonical.js';
import type { CuratorKey } from '../../src/provenance/keys.js';
import { signatureDocument, signatureDocumentBytes, signRegistry } from '../../src/provenance/signature.js';
import type { Endorsement, Registry } from '../../src/registry/types.js';
import { freePort } from './free-port.js';

const root = projectRoot();

export type Docs = { registry: Buffer; signature: Buffer; history: Buffer };
export const documentsOf = (registry: Registry, key: CuratorKey): Docs => ({
  registry: canonicalBytes(registry),
  signature: signatureDocumentBytes(signatureDocument(signRegistry(registry, key, 'server'))),
  history: Buffer.from('[]\n'),
});

/** Serves, per peer path, whatever documents are set for it now: in a child process (see above). */
export async function peerServer (): Promise<{ url: string; set: (path: string, docs: Docs) => Promise<void>; stop: () => void }> {
  const child: ChildProcess = fork(join(root, 'scripts/bench/peer-server.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve((m as { port: number }).port)));
  return {
    url: `http://127.0.0.1:${port}`,
    set: (path, docs) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send({ path, registry: docs.registry.toString('base64'), signature: docs.signature.toString('base64'), history: docs.history.toString('base64') });
      }),
    stop: () => child.kill(),
  };
}

/** The built server (dist/, as npm start runs it) on a free port, endorsing `endorsements`, once every peer is fresh or refused. */
export async function startServer (endorsements: Endorsement[], env: Record<string, string> = {}) {
  const registry = JSON.parse(await readFile(join(root, 'registry.json'), 'utf8')) as Registry;
  const file = join(await mkdtemp(join(tmpdir(), '3gs-hostile-')), 'registry.json');
  await writeFile(file, JSON.stringify({ ...registry, endorsements }));
  const port = await freePort();
  const child = spawn(process.execPath, ['--max-semi-space-size=8', join(root, 'dist/src/server.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), REGISTRY_PATH: file, FEDERATION_ALLOW_LOOPBACK_HTTP: 'true', LOG_LEVEL: 'warn', TRUST_PROXY: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const address = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || i > 600) throw new Error('the server did not start');
    if (await fetch(`${address}/health`).then((r) => r.ok, () => false)) break;
    await sleep(100);
  }
  // Until every peer is fresh (or refused): the copies are in place before anything is timed.
  for (let i = 0; i < 600; i++) {
    const rows = (await (await fetch(`${address}/federation/peers`)).json()) as { peers: { state: string; lastError: unknown }[] };
    if (rows.peers.every((r) => r.state === 'fresh' || r.lastError !== null)) break;
    await sleep(100);
  }
  return { address, child, rss: async () => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024 };
}

const body = (name: string, query: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { query }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } });
export async function call (address: string, name: string, query: string, client = '10.0.0.1'): Promise<number> {
  const res = await fetch(`${address}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name, 'x-forwarded-for': client },
    body: body(name, query),
  });
  await res.arrayBuffer();
  return res.status;
}
