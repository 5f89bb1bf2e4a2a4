import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port.js';
import { binaryOnPath } from './binary.js';
import { ROOT } from './build.js';
import { untilListening } from './listening.js';

/** The nginx binary on PATH (Debian puts it in /usr/sbin, on root's PATH; .ci/run makes sure of it). */
export function nginxBinary (): string | undefined {
  return binaryOnPath('nginx');
}

/** The `skip` option of a test that needs nginx: false when it can run, else the reason. With CI=true nothing is skipped. */
export function nginxSkip (): string | false {
  if (process.env.CI === 'true' || nginxBinary() !== undefined) return false;
  return 'needs nginx on PATH, the reverse proxy docs/operators.md shows: install it (apt-get install nginx; it goes to /usr/sbin)';
}

/** The `location` blocks of docs/operators.md's nginx example, as an operator copies them. */
export async function documentedLocations (): Promise<string> {
  const docs = await readFile(join(ROOT, 'docs', 'operators.md'), 'utf8');
  const example = /```nginx\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
  const blocks = example.match(/^ {4}location [^\n]*\{\n[\s\S]*?\n {4}\}$/gm);
  if (blocks === null || !blocks.some((b) => b.startsWith('    location / {'))) throw new Error('docs/operators.md has no nginx example with a location / block');
  return blocks.join('\n');
}

/**
 * An nginx of our own on a free loopback port, with docs/operators.md's `location` blocks
 * proxying to `upstream` (its 127.0.0.1:3000 replaced), over plain HTTP, in a temporary prefix.
 */
export async function startNginx (t: { teardown(fn: () => unknown): void }, host: string, upstream: string): Promise<{ port: number }> {
  const binary = nginxBinary();
  if (binary === undefined) throw new Error('nginx was not found: install it (apt-get install nginx)');
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), '3gs-nginx-'));
  const location = (await documentedLocations()).replace('127.0.0.1:3000', upstream);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`).join('\n');
  const config = `daemon off;\nmaster_process off;\nerror_log stderr;\npid ${join(dir, 'nginx.pid')};\nevents { worker_connections 64; }\nhttp {\n  access_log off;\n${temp}\n  server {\n    listen 127.0.0.1:${port};\n    server_name ${host};\n${location}\n  }\n}\n`;
  await writeFile(join(dir, 'nginx.conf'), config);
  const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  t.teardown(() => {
    child.kill('SIGTERM');
  });
  await untilListening(child, port, 'nginx', () => log);
  return { port };
}
