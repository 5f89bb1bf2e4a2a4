import { request } from 'node:http';
import t from 'tap';
import { MCP_HEADERS } from '../helpers/build.js';
import { caddySkip, startCaddy } from '../helpers/caddy.js';
import { start } from '../helpers/process.js';

const PUBLIC_HOST = '3gs.example.org';

/** One request to the proxy, naming the public host as a client of https://3gs.example.org would. */
function viaProxy(port: number, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: PUBLIC_HOST, ...(body === undefined ? {} : MCP_HEADERS) } }, (res) => {
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

t.test("behind Caddy on the same machine, as the README's section shows: ALLOWED_HOSTS lets the public host through on every route; without it every route is 403", { skip: caddySkip() }, async (t) => {
  for (const allowed of [true, false]) {
    const server = start({ PORT: '0', HOST: '127.0.0.1', TRUST_PROXY: '127.0.0.1', ...(allowed ? { ALLOWED_HOSTS: PUBLIC_HOST } : {}) });
    t.teardown(() => server.kill('SIGTERM'));
    const upstream = new URL(await server.address);
    const { port } = await startCaddy(t, PUBLIC_HOST, upstream.host);
    const outcomes = [
      await viaProxy(port, 'GET', '/health'),
      await viaProxy(port, 'GET', '/'),
      await viaProxy(port, 'GET', '/registry'),
      await viaProxy(port, 'POST', '/mcp', INITIALIZE),
    ];
    if (allowed) {
      t.same(outcomes.map((o) => o.status), [200, 200, 200, 200], 'with ALLOWED_HOSTS: health, page, registry and /mcp answer');
      t.match(JSON.parse(outcomes[3]!.text), { result: { serverInfo: { name: 'three-good-sources' } } }, 'an MCP session starts through the proxy');
    } else {
      t.same(outcomes.map((o) => o.status), [403, 403, 403, 403], 'without it, every route refuses the public host');
    }
    server.kill('SIGTERM');
    await server.code;
  }
});
