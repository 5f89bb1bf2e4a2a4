import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { canonicalBytes } from '../../src/provenance/canonical.js';
import { generateKey, type CuratorKey } from '../../src/provenance/keys.js';
import { signatureDocument, signatureDocumentBytes, signRegistry } from '../../src/provenance/signature.js';
import type { Registry } from '../../src/registry/types.js';
import { ROOT, SHIPPED_REGISTRY } from './build.js';
import { fakeServer } from './fake-server.js';

export const PEER_REGISTRY = join(ROOT, 'examples', 'peer-registry.json');

/** The example peer registry, as a curator holding `key` would publish it (plus any extra fields). */
export function peerRegistry (key: CuratorKey, extra: Record<string, unknown> = {}): Registry {
  const registry = JSON.parse(readFileSync(PEER_REGISTRY, 'utf8')) as Registry;
  return { ...registry, ...extra, curator: { ...registry.curator, pubkey: key.publicKey } } as Registry;
}

/** The three documents a server-signed peer serves. */
export function peerDocuments (registry: Registry, key: CuratorKey) {
  const signed = signRegistry(registry, key, 'server');
  return { registry: canonicalBytes(registry), signature: signatureDocumentBytes(signatureDocument(signed)), history: Buffer.from('[]\n') };
}

export interface PeerBehaviour {
  /** Bytes to send instead of the registry. */
  readonly registryBody?: Buffer;
  /** Hold every answer until this resolves. */
  readonly hold?: Promise<void>;
  /** Called when a request arrives. */
  readonly onRequest?: () => void;
}

type Documents = ReturnType<typeof peerDocuments>;

/** A real HTTP server on loopback that serves a peer's documents (read at each request when given as a function), as told. */
export function servePeer (t: { teardown(fn: () => unknown): void }, served: Documents | (() => Documents), behaviour: PeerBehaviour = {}): Promise<string> {
  return fakeServer(t, async (req, res: ServerResponse) => {
    behaviour.onRequest?.();
    await behaviour.hold;
    const docs = typeof served === 'function' ? served() : served;
    const body = req.url === '/registry/signature' ? docs.signature : req.url === '/registry/history' ? docs.history : behaviour.registryBody ?? docs.registry;
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
}

/** The shipped registry endorsing the given peers, written to a temporary file. */
export async function endorsingRegistry (peers: readonly { key: string; url: string; name: string }[]): Promise<string> {
  const registry = JSON.parse(readFileSync(SHIPPED_REGISTRY, 'utf8')) as Registry;
  const endorsements = peers.map((p) => ({ pubkey: p.key, url: p.url, name: p.name, since: '2026-11-26' }));
  const file = join(await mkdtemp(join(tmpdir(), '3gs-endorsing-')), 'registry.json');
  await writeFile(file, JSON.stringify({ ...registry, endorsements }, null, 2));
  return file;
}

export const newKey = () => generateKey().key;
