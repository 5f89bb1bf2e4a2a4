/**
 * The `demand` command as a curator runs it (its own process, bin/three-good-sources.mjs) against
 * servers that are not what it expects: endless, compressed, slow, terminal-hostile or malformed
 * replies (issue 31, findings 8 and 9). Each must end in one clear line and exit 1, or print the
 * report with the server's control characters made visible.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { ROOT } from '../helpers/build.js';

const BIN = join(ROOT, 'bin', 'three-good-sources.mjs');
const file = join(await mkdtemp(join(tmpdir(), '3gs-demand-hostile-')), 'token');
await writeFile(file, 'hostile-test-token-0123456789\n');

async function serve (t: { teardown(fn: () => unknown): void }, listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Runs `demand` against `url`: its exit code and output. */
function demand (url: string, ...extra: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'demand', url, '--token-file', file, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

const REPORT = {
  recording: true,
  store: 'memory',
  window: { days: 30, from: '2026-10-30', to: '2026-11-28' },
  minClients: 5,
  totals: { requests: 9, byOutcome: { 'below-threshold': 9 }, answeredByCategory: {} },
  uncovered: [{ text: 'copy \u001b]52;c;cm0gLXJmIH4=\u0007 me \u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\ \u009b2J \u202eevil', clients: 5, asks: 9, related: [] }],
  nearMisses: [],
  answered: [],
  scopeRefusals: [],
};

t.test('a reply without end is cut at the byte cap (finding 8)', async (t) => {
  const url = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const more = () => {
      while (res.write(chunk));
      res.once('drain', more);
    };
    more();
  });
  const r = await demand(url);
  t.equal(r.code, 1);
  t.match(r.err, /^cannot reach http:\/\/127\.0\.0\.1:\d+\/demand: larger than 4194304 bytes$/m);
});

t.test('a compressed reply is refused, never inflated: a gzip bomb costs nothing (finding 8)', async (t) => {
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
  let asked = '';
  const url = await serve(t, (req, res) => {
    asked = String(req.headers['accept-encoding']);
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
  });
  const r = await demand(url);
  t.equal(asked, 'identity', 'the command asks for no encoding');
  t.equal(r.code, 1);
  t.match(r.err, /content encoding "gzip"/);
});

t.test('a server that drips its reply meets the deadline (finding 8)', async (t) => {
  const url = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const drip = setInterval(() => res.write(' '), 100);
    res.on('close', () => clearInterval(drip));
  });
  const r = await demand(url, '--timeout', '2');
  t.equal(r.code, 1);
  t.match(r.err, /no answer within 2000 ms$/m);
});

t.test("the server's control characters are printed visible, never acted on (finding 9)", async (t) => {
  const url = await serve(t, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(REPORT)));
  for (const extra of [[], ['--json']]) {
    const r = await demand(url, ...extra);
    t.equal(r.code, 0, r.err);
    // eslint-disable-next-line no-control-regex -- the control characters are what it looks for
    t.notMatch(r.out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/, `${extra.join(' ') || 'text'}: no control character reaches the terminal`);
    t.match(r.out, extra.length === 0 ? '\\u001b]52;c;cm0gLXJmIH4=\\u0007' : '\\\\u001b]52;c;cm0gLXJmIH4=\\\\u0007', 'the clipboard write is shown as text');
    t.match(r.out, extra.length === 0 ? '\\u202eevil' : '\\\\u202eevil', 'a right-to-left override too');
  }
});

t.test('a malformed report is one clear line, never a stack trace (finding 9)', async (t) => {
  const bodies = [
    { ...REPORT, uncovered: undefined },
    { ...REPORT, nearMisses: [{ slug: 'x', name: 'X', declined: 1 }] },
    { ...REPORT, answered: [{ slug: 'x', name: 'X', answered: 1 }] },
    { ...REPORT, totals: { requests: 'many' } },
    { ...REPORT, window: null },
    [REPORT],
  ];
  for (const body of bodies) {
    const url = await serve(t, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    const r = await demand(url);
    t.equal(r.code, 1, JSON.stringify(body).slice(0, 80));
    t.match(r.err, /^http:\/\/127\.0\.0\.1:\d+\/demand answered something other than a demand report \(.+\): is it a Three Good Sources server's \/demand\?\n?$/);
    t.notMatch(r.err, /TypeError|at .*\.js:\d+/, 'no stack trace');
  }
});
