import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { demandUrl } from '../../../src/cli/demand.js';
import { build, rpc } from '../../helpers/build.js';
import { cli } from '../../helpers/signed.js';

const TOKEN = 'cli-demand-token-0123456789';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'tap', version: '1' } };

async function tokenFile (content = `${TOKEN}\n`): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), '3gs-demand-cli-')), 'token');
  await writeFile(file, content);
  return file;
}

t.test('demand: the report of a live server, as text and as JSON', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  for (let i = 0; i < 8; i++) {
    for (const query of ['sourdough bread starter', 'learn rust programming', 'bitcoin price today', 'password for my wifi router at the cafe']) {
      await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query }, _meta: META } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' }, { remoteAddress: `10.0.0.${i}` });
    }
  }
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const file = await tokenFile();
  const text = await cli('demand', base, '--token-file', file);
  t.equal(text.code, 0, text.err);
  t.match(text.out, /^Demand from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d \(the last 30 days; counts kept in memory\)\./);
  t.match(text.out, /Requests: 32\n {2}answered: 8\n {2}below-threshold: 16\n {2}out-of-scope: 8/);
  t.match(text.out, /Answered, per category \(is each question its topic\? a wrong one is turned away with a not-about entry\):\n {2}Rust Learning \(rust-learning\): 8 answered\n {5}questions: "learn rust programming" \(\d+ clients, 8 asks, on \d{4}-\d\d-\d\d\)/);
  t.match(text.out, /Most asked topics nobody here covers:\n {2}1\. "/);
  t.match(text.out, /Password Management \(password-management\): 8 declined\n {5}words it does not know: .*"wifi"/);
  t.match(text.out, /Scope refusals, per not-about entry:\n {2}Bitcoin Node Setup \(bitcoin-node-setup\), entry "price" \(\d+ clients, 8 asks, on \d{4}-\d\d-\d\d\)/);
  const json = await cli('demand', `${base}/demand`, '--json', '--token-file', file);
  t.equal(json.code, 0);
  t.equal(JSON.parse(json.out).totals.requests, 32, '--json: the route\'s report');
});

t.test('demand: an empty window says so', async (t) => {
  const app = await build(t, { demandToken: TOKEN });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const text = await cli('demand', base, '--token-file', await tokenFile());
  t.equal(text.code, 0);
  t.match(text.out, /No requests were recorded in this window\.$/);
});

t.test('demand: with recording off, the report says nothing is counted', async (t) => {
  const app = await build(t, { demandToken: TOKEN, demandSignal: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const text = await cli('demand', base, '--token-file', await tokenFile());
  t.match(text.out, /Recording is off on this server \(DEMAND_SIGNAL=off\): nothing is counted\./);
});

t.test('demand: each failure exits 1 and says what to do', async (t) => {
  const withToken = await build(t, { demandToken: TOKEN });
  const base = await withToken.listen({ host: '127.0.0.1', port: 0 });
  const without = await build(t);
  const bare = await without.listen({ host: '127.0.0.1', port: 0 });
  const mover = createServer((_req, res) => res.writeHead(302, { location: `${base}/demand` }).end());
  await new Promise<void>((resolve) => mover.listen(0, '127.0.0.1', resolve));
  t.teardown(() => mover.close());
  const redirecting = `http://127.0.0.1:${(mover.address() as AddressInfo).port}`;
  const cases: [string, string[], RegExp][] = [
    ['no arguments', [], /^usage: three-good-sources demand <url> --token-file <file>/],
    ['no token file', [base], /^usage:/],
    ['not a URL', ['nowhere', '--token-file', await tokenFile()], /^usage:/],
    ['an unreadable token file', [base, '--token-file', '/nonexistent/token'], /^cannot read the token file \/nonexistent\/token \(ENOENT\)$/],
    ['a wrong token', [base, '--token-file', await tokenFile('wrong-token-0123456789')], /refused the token \(401\): check the file holds the server's DEMAND_TOKEN$/],
    ['a server without DEMAND_TOKEN', [bare, '--token-file', await tokenFile()], /has no demand report \(404\): the server runs without DEMAND_TOKEN, so the route does not exist$/],
    ['nothing listening', ['http://127.0.0.1:9/', '--token-file', await tokenFile()], /^cannot reach http:\/\/127\.0\.0\.1:9\/demand: /],
    ['an empty token file', [base, '--token-file', await tokenFile('\n')], /^the token file .* is empty: put the server's DEMAND_TOKEN in it$/],
    ['a redirect (the token would follow it)', [`${redirecting}/demand`, '--token-file', await tokenFile()], /^cannot reach http:\/\/127\.0\.0\.1:\d+\/demand: /],
    ['a route that is not the report', [`${base}/health`, '--token-file', await tokenFile()], /\/health answered something other than a demand report \(the reply must have required property 'recording'\): is it a Three Good Sources server's \/demand\?$/],
    ['a page', [`${base}/c/rust-learning`, '--token-file', await tokenFile()], /answered something other than a demand report/],
  ];
  for (const [name, args, expected] of cases) {
    const r = await cli('demand', ...args);
    t.equal(r.code, 1, name);
    t.match(r.err, expected, name);
  }
  const other = await cli('demand', `${bare}/nothing-here`, '--token-file', await tokenFile());
  t.equal(other.code, 1);
  t.match(other.err, /404/);
});

t.test("demand: a server's base URL means its /demand", async (t) => {
  t.equal(demandUrl('https://3gs.example.org').href, 'https://3gs.example.org/demand');
  t.equal(demandUrl('https://3gs.example.org/').href, 'https://3gs.example.org/demand');
  t.equal(demandUrl('https://3gs.example.org/prefix/demand').href, 'https://3gs.example.org/prefix/demand');
  t.equal(demandUrl('https://example.org/3gs/').href, 'https://example.org/3gs/demand', 'a server under a path');
});

t.test('demand: plain http to another machine is warned about', async (t) => {
  const r = await cli('demand', 'http://192.0.2.1:9/', '--token-file', await tokenFile());
  t.match(r.err, /^warning: sending the token over plain http to 192\.0\.2\.1:9: anyone on the way can read it; use https/);
});

t.test('demand follows no redirect, not even on the same server: the token never reaches where it points', async (t) => {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/demand') {
      res.writeHead(302, { location: '/collect' }).end();
      return;
    }
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const r = await cli('demand', `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, '--token-file', await tokenFile());
  t.equal(r.code, 1);
  t.match(r.err, /redirected: the documents must be served at that address|redirect/);
  t.same(seen, [], 'nothing was sent to the redirect target');
});
