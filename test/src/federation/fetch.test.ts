import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { Federation, type PeerEvent } from '../../../src/federation/federation.js';
import { fetchDocument, PeerFetchError, type FetchLimits } from '../../../src/federation/fetch.js';
import { fakeServer } from '../../helpers/fake-server.js';
import { newKey } from '../../helpers/peers.js';
import { sleep } from '../../helpers/process.js';
import { waitFor } from '../../helpers/wait.js';

const limits: FetchLimits = { timeoutMs: 2000, maxBytes: 1024 * 1024, maxRedirects: 3, allowLoopbackHttp: true };
const json = (res: ServerResponse) => res.setHeader('content-type', 'application/json');

/** What fetchDocument rejects with: always a PeerFetchError, never anything else. */
async function failureOf (url: string, options: Partial<FetchLimits> = {}): Promise<string> {
  try {
    await fetchDocument(new URL('/registry', url), { ...limits, ...options });
  } catch (err) {
    if (!(err instanceof PeerFetchError)) throw err;
    return err.message;
  }
  return 'fetched';
}

// Each case is a real server doing something a peer's server should never do. The reply must be
// a refusal with a reason; tap fails the file on any error that reaches the process.
const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
  ['more content encodings than any client decodes, the body left open', (_req, res) => {
    json(res);
    res.setHeader('content-encoding', 'gzip, gzip, gzip, gzip, gzip, gzip, gzip');
    res.write('x');
  }, /^content encoding "gzip, gzip, gzip, gzip, gzip, gzip, gzip": peers must serve their documents unencoded$/],
  ['a real gzip body (never decompressed: no decompression bomb)', (_req, res) => {
    json(res);
    res.setHeader('content-encoding', 'gzip');
    res.end(gzipSync(Buffer.alloc(1_000_000, 32)));
  }, /^content encoding "gzip"/],
  ['a chain of encodings with bytes outside ASCII in it', (req) => {
    req.socket.end(Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: br, deflate, x-\u00e9\u00ff\r\ncontent-length: 2\r\n\r\n{}', 'latin1'));
  }, /^content encoding "br, deflate, x-\?\?": /],
  ['the connection closed before any reply', (req) => req.socket.destroy(), /^unreachable \(ECONNRESET\)$/],
  ['the connection reset in the middle of the body', (_req, res) => {
    json(res);
    res.setHeader('content-length', '1000');
    res.write('{"categories": {');
    setTimeout(() => res.socket?.resetAndDestroy(), 20);
  }, /^the reply was cut off$/],
  ['a body shorter than its declared length', (_req, res) => {
    json(res);
    res.setHeader('content-length', '1000');
    res.write('{}');
    setTimeout(() => res.socket?.end(), 20);
  }, /^the reply was cut off$/],
  ['a malformed chunked body', (req) => {
    req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n');
    setTimeout(() => req.socket.destroy(), 20);
  }, /^(the reply was cut off|unreachable \(HPE_INVALID_CHUNK_SIZE\))$/],
  ['headers larger than any real reply', (req) => {
    req.socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-filler: ${'a'.repeat(200_000)}\r\n\r\n{}`);
    req.socket.end();
  }, /^unreachable \(HPE_HEADER_OVERFLOW\)$/],
  ['a body over the cap with no declared length', (_req, res) => {
    json(res);
    res.write(Buffer.alloc(600_000, 32));
    res.write(Buffer.alloc(600_000, 32));
  }, /^larger than 1048576 bytes$/],
  ['a body that trickles past the time limit', (_req, res) => {
    json(res);
    const drip = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(drip));
  }, /^no answer within 2000 ms$/],
];

t.test('each misbehaving peer server is refused with its reason, and nothing escapes to the process', async (t) => {
  for (const [what, handler, reason] of cases) {
    const url = await fakeServer(t, handler);
    t.match(await failureOf(url), reason, what);
  }
  // Late errors (a socket closing after the refusal) would surface here.
  await sleep(200);
});

t.test('a fetch aborted while the body is being read ends as cancelled, its socket closed', async (t) => {
  let closed = false;
  const url = await fakeServer(t, (_req, res) => {
    json(res);
    res.write('{');
    res.on('close', () => (closed = true));
  });
  const abort = new AbortController();
  const pending = fetchDocument(new URL('/registry', url), { ...limits, signal: abort.signal }).then(
    () => 'fetched',
    (err: unknown) => (err instanceof PeerFetchError ? err.message : `escaped: ${String(err)}`)
  );
  await sleep(100);
  abort.abort();
  t.equal(await pending, 'cancelled');
  await waitFor(() => closed);
  t.ok(closed, 'the peer sees its connection closed');
});

t.test('a federation whose peer sends a hostile encoding on one document and holds the others: refused, the other fetches cancelled, nothing escapes', async (t) => {
  const key = newKey();
  let held = 0;
  const url = await fakeServer(t, (req, res) => {
    json(res);
    if (req.url === '/registry') {
      res.setHeader('content-encoding', Array(8).fill('gzip').join(', '));
      res.write('x');
      return;
    }
    held++;
    res.write('{');
  });
  const events: PeerEvent[] = [];
  const f = new Federation({
    refreshMs: 60_000,
    cacheDir: undefined,
    allowLoopbackHttp: true,
    matchThreshold: 0.45,
    timeoutMs: 1000,
    onEvent: (e) => events.push(e),
  });
  f.setPeers([{ pubkey: key.publicKey, url, name: 'Hostile', since: '2026-11-26' }]);
  f.start();
  await waitFor(() => events.length > 0);
  t.match(events[0], { kind: 'failed', reason: /^content encoding/ });
  t.equal(f.peers()[0]!.state, 'unavailable');
  t.equal(held, 2, 'the other two documents were asked for, then cancelled');
  // The timeout of the cancelled fetches passes, and the federation is stopped: still nothing escapes.
  await sleep(1200);
  f.stop();
  await sleep(100);
});
