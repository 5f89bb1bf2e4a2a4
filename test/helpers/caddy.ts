import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port.js';
import { binaryOnPath } from './binary.js';
import { ROOT } from './build.js';
import { untilListening } from './listening.js';

/** The caddy binary on PATH, if there is one. */
export function caddyBinary (): string | undefined {
  return binaryOnPath('caddy');
}

/** The `skip` option of a test that needs Caddy: false when it can run, else the reason. With CI=true nothing is skipped. */
export function caddySkip (): string | false {
  if (process.env.CI === 'true' || caddyBinary() !== undefined) return false;
  return 'needs Caddy, the reverse proxy the README shows: install it (apt-get install caddy)';
}

/** The directives of docs/operators.md's Caddyfile (inside its site block), as an operator copies them. */
async function documentedSite (): Promise<string> {
  const docs = await readFile(join(ROOT, 'docs', 'operators.md'), 'utf8');
  const body = /```\n3gs\.example\.org \{\n([\s\S]*?)\n\}\n```/.exec(docs)?.[1];
  if (body === undefined) throw new Error('docs/operators.md has no Caddyfile for 3gs.example.org');
  return body;
}

/**
 * A Caddy of our own on a free loopback port, proxying `host` to `upstream` as docs/operators.md's
 * Caddyfile does (its directives read from there), over plain HTTP (no certificate to get in a test) and with no admin endpoint.
 */
export async function startCaddy (t: { teardown(fn: () => unknown): void }, host: string, upstream: string): Promise<{ port: number }> {
  const binary = caddyBinary();
  if (binary === undefined) throw new Error('caddy was not found on PATH: install it (apt-get install caddy)');
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), '3gs-caddy-'));
  const config = join(dir, 'Caddyfile');
  await writeFile(config, `{\n\tadmin off\n\tauto_https off\n}\nhttp://${host}:${port} {\n\tbind 127.0.0.1\n${(await documentedSite()).replace('127.0.0.1:3000', upstream)}\n}\n`);
  const child = spawn(binary, ['run', '--config', config, '--adapter', 'caddyfile'], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  t.teardown(() => {
    child.kill('SIGTERM');
  });
  await untilListening(child, port, 'caddy', () => log);
  return { port };
}
