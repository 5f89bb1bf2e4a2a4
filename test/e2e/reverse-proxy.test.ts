import { request } from 'node:http';
import t from 'tap';
import { MCP_HEADERS } from '../helpers/build.js';
import { caddySkip, startCaddy } from '../helpers/caddy.js';
import { nginxSkip, startNginx } from '../helpers/nginx.js';
import { start } from '../helpers/process.js';

const PUBLIC_HOST = '3gs.example.org';

/** One request to the proxy, naming the public host as a client of https://3gs.example.org would. */
function viaProxy (port: number, method: string, path: string, body?: string, extra: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: PUBLIC_HOST, ...(body === undefined ? {} : MCP_HEADERS), ...extra } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'proxy-test', version: '1.0.0' } } });

const PROXIES = [
  { name: 'Caddy', skip: caddySkip(), start: startCaddy },
  { name: 'nginx', skip: nginxSkip(), start: startNginx },
] as const;

for (const proxy of PROXIES) {
  t.test(`behind ${proxy.name} on the same machine, as docs/operators.md shows: ALLOWED_HOSTS lets the public host through on every route; without it every route is 403`, { skip: proxy.skip }, async (t) => {
    for (const allowed of [true, false]) {
      const server = start({ PORT: '0', HOST: '127.0.0.1', TRUST_PROXY: '127.0.0.1', ...(allowed ? { ALLOWED_HOSTS: PUBLIC_HOST } : {}) });
      t.teardown(() => server.kill('SIGTERM'));
      const upstream = new URL(await server.address);
      const { port } = await proxy.start(t, PUBLIC_HOST, upstream.host);
      const outcomes = [
        await viaProxy(port, 'GET', '/health'),
        await viaProxy(port, 'GET', '/'),
        await viaProxy(port, 'GET', '/registry'),
        await viaProxy(port, 'POST', '/mcp', INITIALIZE),
      ];
      if (allowed) {
        t.same(outcomes.map((o) => o.status), [200, 200, 200, 200], 'with ALLOWED_HOSTS: health, page, registry and /mcp answer');
        t.match(JSON.parse(outcomes[3]!.text), { result: { serverInfo: { name: 'three-good-sources' } } }, 'an MCP session starts through the proxy');
        t.equal((await viaProxy(port, 'GET', '/metrics')).status, 404, '/metrics is not served on the public name (issue 33, item 11)');
      } else {
        t.same(outcomes.map((o) => o.status), [403, 403, 403, 403], 'without it, every route refuses the public host');
        // Issue 33, item 11: the reply and the log line name the refused Host and the setting that admits it.
        t.match(JSON.parse(outcomes[0]!.text).message, /the Host "3gs\.example\.org" is not allowed .* add it to ALLOWED_HOSTS/, 'the 403 says which Host and what to set');
        t.match(server.stderr(), /"host":"3gs\.example\.org".*refused a Host not in ALLOWED_HOSTS/, 'so does the log');
      }
      server.kill('SIGTERM');
      await server.code;
    }
  });

  t.test(`behind ${proxy.name}: a client's forged X-Forwarded-Host and X-Forwarded-Proto never reach the server card or the page; PUBLIC_URL is what they name when set (issue 31, finding 4)`, { skip: proxy.skip }, async (t) => {
    const forged = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' };
    for (const publicUrl of [undefined, 'https://3gs.example.org']) {
      const server = start({ PORT: '0', HOST: '127.0.0.1', TRUST_PROXY: '127.0.0.1', ALLOWED_HOSTS: PUBLIC_HOST, ...(publicUrl === undefined ? {} : { PUBLIC_URL: publicUrl }) });
      t.teardown(() => server.kill('SIGTERM'));
      const { port } = await proxy.start(t, PUBLIC_HOST, new URL(await server.address).host);
      const card = await viaProxy(port, 'GET', '/.well-known/mcp/server-card.json', undefined, forged);
      const expected = `${publicUrl ?? `http://${PUBLIC_HOST}`}/mcp`;
      t.equal(JSON.parse(card.text).remotes[0].url, expected, `the card names ${expected}`);
      const page = await viaProxy(port, 'GET', '/', undefined, forged);
      t.equal(page.status, 200);
      t.notMatch(page.text, /evil\.example|javascript:/, 'the page repeats neither forged value');
      t.match(page.text, publicUrl ?? `http://${PUBLIC_HOST}`, "the page's examples name the public address");
      server.kill('SIGTERM');
      await server.code;
    }
  });
}
