import t from 'tap';
import { isLoopback } from '../../../plugins/infrastructure/origin-policy.js';
import { build } from '../../helpers/build.js';

// Issue 31, finding 11: these spellings of a loopback HOST turned the DNS-rebinding Host check off.
const LOOPBACK = ['127.0.0.1', 'localhost', 'LOCALHOST', 'localhost.', '127.1', '2130706433', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '127.8.9.10', 'app.localhost'];
const NOT_LOOPBACK = ['0.0.0.0', '::', '192.0.2.7', 'example.org', 'localhost.example.org', '128.0.0.1', '::2', ''];

t.test('every spelling of a loopback address or name is loopback; nothing else is', async (t) => {
  for (const host of LOOPBACK) t.ok(isLoopback(host), `${JSON.stringify(host)} is loopback`);
  for (const host of NOT_LOOPBACK) t.notOk(isLoopback(host), `${JSON.stringify(host)} is not`);
});

t.test('bound to loopback however HOST spells it, a foreign Host header is refused and a localhost one served', async (t) => {
  for (const host of ['LOCALHOST', '127.1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
    const app = await build(t, { host });
    const foreign = await app.inject({ method: 'GET', url: '/health', headers: { host: 'evil.example' } });
    t.equal(foreign.statusCode, 403, `HOST=${host}: Host evil.example gets 403`);
    const local = await app.inject({ method: 'GET', url: '/health', headers: { host: 'localhost:3000' } });
    t.equal(local.statusCode, 200, `HOST=${host}: Host localhost is served`);
  }
});

t.test('a localhost Origin counts only over http or https: another scheme naming localhost is refused on /mcp', async (t) => {
  const app = await build(t);
  const ping = (origin: string) =>
    app.inject({ method: 'POST', url: '/mcp', headers: { origin, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } });
  t.equal((await ping('http://localhost:5173')).statusCode, 200, 'http://localhost is a local page');
  for (const origin of ['ftp://localhost:21', 'ws://127.0.0.1:8080', 'file://localhost']) t.equal((await ping(origin)).statusCode, 403, `${origin}: 403`);
});
