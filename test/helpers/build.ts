import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { projectRoot } from '../../src/project.js';
import { generateKey, keyFromSeed, type CuratorKey } from '../../src/provenance/keys.js';
import type { Signing } from '../../src/provenance/signing.js';

export const ROOT = projectRoot();
export const SHIPPED_REGISTRY = join(ROOT, 'registry.json');
export const fixture = (...parts: string[]): string => join(ROOT, 'test', 'fixtures', ...parts);

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A fixed curator seed for tests (never a real key), and the public key it gives. */
export const TEST_SEED = Buffer.alloc(32, 7);
export const TEST_PUBLIC_KEY = keyFromSeed(TEST_SEED).publicKey;

/** Server-side signing with `key` (the test curator's by default): what prepareCatalog takes. */
export function serverSigning (key: CuratorKey = keyFromSeed(TEST_SEED)): Signing {
  return { mode: 'server', key };
}

/** A test configuration: the shipped registry, silent logs, the test curator key, overridable per test. */
export function testConfig (overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ LOG_LEVEL: 'silent' }), curatorSeed: TEST_SEED, ...overrides };
}

/** Another valid public key, for endorsements and wrong-key cases. */
export function otherPublicKey (): string {
  return generateKey().key.publicKey;
}

/** Builds the app for one test and closes it when the test ends (fastify/demo's build(t)). */
export async function build (t: Teardown, overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(overrides));
  t.teardown(() => app.close());
  return app;
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function rpc (app: FastifyInstance, body: unknown, headers: Record<string, string> = {}, extra: Partial<InjectOptions> = {}) {
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...MCP_HEADERS, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    ...extra,
  });
}

export const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'tap', version: '1.0.0' },
};

/** Runs the 2025 handshake and returns the session id. */
export async function openSession (app: FastifyInstance, protocolVersion = '2025-11-25'): Promise<string> {
  const res = await rpc(app, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { ...INIT_PARAMS, protocolVersion } });
  const id = res.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error(`initialize failed: ${res.statusCode} ${res.body}`);
  await rpc(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id });
  return id;
}

export async function callTool (app: FastifyInstance, session: string, name: string, args?: unknown, id: number | string = 7) {
  const params = args === undefined ? { name } : { name, arguments: args };
  const res = await rpc(app, { jsonrpc: '2.0', id, method: 'tools/call', params }, { 'mcp-session-id': session });
  return {
    res,
    json: res.json() as {
      id?: unknown;
      result?: { content: { type: string; text: string }[]; isError?: boolean };
      error?: { code: number; message: string };
    },
  };
}
