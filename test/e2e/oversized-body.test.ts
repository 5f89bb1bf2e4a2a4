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
          res.on('error', (err: NodeJS.ErrnoException) => resolve(`HTTP ${res.statusCode} then ${err.code ?? 'error'}`));
        }
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      req.end(body);
    });
  for (const chunked of [false, true]) {
    const outcomes = [];
    for (let i = 0; i < 10; i++) outcomes.push(await post(chunked));
    t.same(outcomes, Array(10).fill('HTTP 413'), `${chunked ? 'chunked' : 'Content-Length'}: ten 5 MiB posts, ten 413s read, no EPIPE or reset`);
  }
  // A body that never ends is read only up to the bound, then the connection is closed: the 413
  // goes out first, and whether a client busy writing reads it before the close is a race the
  // server cannot win (so either is accepted). What must hold: the server stops reading.
  const cap = DRAIN_LIMIT_BYTES * 8;
  const endless = await new Promise<{ outcome: string; sent: number }>((resolve) => {
    let sent = 0;
    let over = false;
    const finish = (outcome: string) => {
      if (over) return;
      over = true;
      req.destroy();
      resolve({ outcome, sent });
    };
    const req = request({ host: address.hostname, port: address.port, path: '/mcp', method: 'POST', headers: MCP_HEADERS }, (res) => {
      res.resume();
      finish(`HTTP ${res.statusCode}`);
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? 'error'));
    // A server that stops reading and never answers must fail this test, not hang it.
    setTimeout(() => finish('no answer within 60 s'), 60_000).unref();
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const write = () => {
      // `finish` ends the loop; the stream's drain event resumes it.
      for (;;) {
        if (over) return;
        if (sent >= cap) return finish('still reading');
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
    };
    write();
  });
  t.match(endless.outcome, /^(HTTP 413|ECONNRESET|EPIPE)$/, `an endless body gets its 413 or a closed connection, not an endless read (got ${endless.outcome})`);
  t.ok(endless.sent < cap, `the server stopped reading after about ${DRAIN_LIMIT_BYTES / 1024 / 1024} MiB (client sent ${(endless.sent / 1024 / 1024).toFixed(0)} MiB)`);
});
