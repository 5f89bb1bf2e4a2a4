import t from 'tap';
import { derived, messageText, stable } from '../../../src/mcp/stable-json.js';
import { build, callTool, openSession, rpc } from '../../helpers/build.js';

t.test('a stable result gives the same bytes as JSON.stringify, whatever the id', async (t) => {
  const result = stable({ content: [{ type: 'text', text: 'quotes " and \\ and \u2028 and ünïcode' }], n: 1.5, nested: { ok: true, none: null } });
  for (const id of [1, 0, -7, 2.5, 'r1', 'a "quoted" id', 'line\nbreak', '\u0000', 'ünï']) {
    const message = { jsonrpc: '2.0' as const, id, result };
    t.equal(messageText(message), JSON.stringify(message), `id of type ${typeof id}`);
  }
  t.ok(Object.isFrozen(result.content[0]), 'frozen all the way down: the remembered text cannot go stale');
});

t.test('other messages are serialised as they are', async (t) => {
  const error = { jsonrpc: '2.0' as const, id: 3, error: { code: -32601, message: 'Method not found' } };
  t.equal(messageText(error), JSON.stringify(error));
  const fresh = { jsonrpc: '2.0' as const, id: 4, result: { changing: [1, 2] } };
  t.equal(messageText(fresh), JSON.stringify(fresh));
  fresh.result.changing.push(3);
  t.equal(messageText(fresh), JSON.stringify(fresh), 'a result that was never made stable is never remembered');
  const notification = { jsonrpc: '2.0' as const, method: 'notifications/subscriptions/acknowledged', params: {} };
  t.equal(messageText(notification), JSON.stringify(notification));
});

t.test('a derived view is built once per source and key', async (t) => {
  const source = {};
  let builds = 0;
  const make = () => ({ n: ++builds });
  t.equal(derived(source, 'a', make), derived(source, 'a', make));
  t.not(derived(source, 'a', make), derived(source, 'b', make));
  t.not(derived({}, 'a', make), derived(source, 'a', make));
  t.equal(builds, 3);
});

t.test('a remembered answer echoes each request id, even one that needs escaping', async (t) => {
  const app = await build(t);
  const session = await openSession(app);
  const ids = ['plain', 'with "quotes" and \\', 'ünï\u2028', 42, 0];
  const bodies: string[] = [];
  for (const id of ids) {
    const { res, json } = await callTool(app, session, 'get_sources', { query: 'learn rust programming' }, id);
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.same(json.id, id, `id number ${bodies.length + 1} echoed`);
    bodies.push(JSON.stringify((json as { result: unknown }).result));
  }
  t.equal(new Set(bodies).size, 1, 'the same answer every time');
  // The 2026-07-28 view of the same remembered answer carries its own fields.
  const modern = await rpc(
    app,
    { jsonrpc: '2.0', id: 'm"1', method: 'tools/call', params: { name: 'get_sources', arguments: { query: 'learn rust programming' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' }
  );
  t.equal(modern.json().id, 'm"1');
  t.equal(modern.json().result.resultType, 'complete');
  t.same(modern.json().result.structuredContent, JSON.parse(bodies[0]!).structuredContent);
});
