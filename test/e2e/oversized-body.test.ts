import { request } from 'node:http';
import t from 'tap';
import { DRAIN_LIMIT_BYTES } from '../../plugins/support/http-errors.js';
import { MCP_HEADERS } from '../helpers/build.js';
import { start } from '../helpers/process.js';

t.test('a client still sending an oversized body reads the 413 (the rest is read and dropped first), with Content-Length or chunked', async (t) => {
  // A server process of its own: in one process the client's writes and the server's reads take
  // turns on one event loop, and the race this is about never shows.
  const server = start({ PORT: '0' });
  t.teardown(() => server.kill('SIGTERM'));
  const address = new URL(await server.address);
  const body = Buffer.alloc(5 * 1024 * 1024, 'a');
  const post = (chunked: boolean) =>
    new Promise<string>((resolve) => {
      const req = request(
        { host: address.hostname, port: address.port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, ...(chunked ? {} : { 'content-length': body.length }) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(`HTTP ${res.statusCode}`));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      req.end(body);
    });
  for (const chunked of [false, true]) {
    const outcomes = [];
    for (let i = 0; i < 10; i++) outcomes.push(await post(chunked));
    t.same(outcomes, Array(10).fill('HTTP 413'), `${chunked ? 'chunked' : 'Content-Length'}: ten 5 MiB posts, ten 413s read, no EPIPE or reset`);
  }
  // A body that never ends is read only up to the bound: the 413 still comes.
  const endless = await new Promise<{ status: number; sent: number }>((resolve) => {
    let sent = 0;
    let answered = false;
    const req = request({ host: address.hostname, port: address.port, path: '/mcp', method: 'POST', headers: MCP_HEADERS }, (res) => {
      answered = true;
      res.resume();
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, sent });
      });
    });
    req.on('error', () => undefined);
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const write = () => {
      while (!answered) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
    };
    write();
  });
  t.equal(endless.status, 413, 'an endless body gets its 413');
  t.ok(endless.sent < DRAIN_LIMIT_BYTES * 4, `the server stopped reading after about ${DRAIN_LIMIT_BYTES / 1024 / 1024} MiB (client sent ${(endless.sent / 1024 / 1024).toFixed(0)} MiB)`);
});
