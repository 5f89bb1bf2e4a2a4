import { connect } from 'node:net';
import t from 'tap';
import { build } from '../helpers/build.js';

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

interface Answer {
  /** Status lines in the order they came, e.g. ["HTTP/1.1 408 Request Timeout"] (bodies have no newline to start them). */
  readonly statuses: string[];
  /** From connecting until the server closed the connection. */
  readonly closedAfterMs: number;
}

/**
 * A real client on a real socket: writes `first` at once, then `dribble` one byte a second (a
 * slowloris), then `after` once `afterMs` has passed; gives what came back when the server
 * closes, or when `giveUpMs` is over.
 */
function talk (port: number, { first = '', dribble = '', after = '', afterMs = 0, giveUpMs = 20_000 }): Promise<Answer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let i = 0;
    const drip = setInterval(() => {
      if (i < dribble.length) socket.write(dribble[i++]!);
    }, 1000);
    const later = after === '' ? undefined : setTimeout(() => socket.write(after), afterMs);
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(later);
      clearTimeout(giveUp);
      resolve({ statuses: received.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [], closedAfterMs: Date.now() - started });
    });
    socket.write(first);
  });
}

const post = (port: number, length: number) =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${length}\r\n\r\n`;

async function listening (t: Parameters<typeof build>[0], requestTimeoutMs: number): Promise<number> {
  const app = await build(t, { requestTimeoutMs });
  return Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
}

// Node's defaults let a slow body run to 60 s and checked only every 30 s: with a 5 s limit the
// 408 came after 74 to 88 s. These bounds are far below that and far above the limit.
t.test('REQUEST_TIMEOUT_MS bounds a body sent one byte a second: 408, then the connection closes', async (t) => {
  const port = await listening(t, 2000);
  const body = PING.padEnd(200, ' ');
  const answer = await talk(port, { first: post(port, body.length), dribble: body });
  t.same(answer.statuses, ['HTTP/1.1 408 Request Timeout']);
  t.ok(answer.closedAfterMs >= 1900, `not before the limit (${answer.closedAfterMs} ms)`);
  t.ok(answer.closedAfterMs < 10_000, `well within 10 s (${answer.closedAfterMs} ms)`);
});

t.test('REQUEST_TIMEOUT_MS bounds headers sent one byte a second too', async (t) => {
  const port = await listening(t, 2000);
  const answer = await talk(port, { dribble: `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n` });
  t.same(answer.statuses, ['HTTP/1.1 408 Request Timeout']);
  t.ok(answer.closedAfterMs < 10_000, `well within 10 s (${answer.closedAfterMs} ms)`);
});

t.test('a kept-alive connection idle for longer than REQUEST_TIMEOUT_MS still serves its next request', async (t) => {
  const port = await listening(t, 1000);
  const get = `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
  const answer = await talk(port, { first: get, after: get.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'), afterMs: 2500 });
  t.same(answer.statuses, ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
});

t.test('REQUEST_TIMEOUT_MS=0 sets no limit on the body', async (t) => {
  const port = await listening(t, 0);
  const body = PING.padEnd(PING.length + 3, ' ');
  // Three bytes a second apart: longer than any of the limits above, and then the answer.
  const answer = await talk(port, { first: `${post(port, body.length).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}${PING}`, dribble: '   ' });
  t.same(answer.statuses, ['HTTP/1.1 200 OK']);
});
