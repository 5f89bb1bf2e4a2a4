import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { build } from '../helpers/build.js';

t.test('the official SDK client (2025 era) connects, lists the tools, calls each and closes', async (t) => {
  const app = await build(t);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', address));
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);

  t.ok(transport.sessionId, 'a session was minted');
  t.equal(client.getServerVersion()?.name, 'three-good-sources');
  t.same(client.getServerCapabilities(), { tools: {} });
  t.match(client.getInstructions(), /get_sources/);

  const { tools } = await client.listTools();
  t.same(tools.map((x) => x.name).sort(), ['get_endorsements', 'get_federated_sources', 'get_history', 'get_provenance', 'get_sources', 'list_categories']);

  const found = await client.callTool({ name: 'get_sources', arguments: { query: 'how do I run a bitcoin full node' } });
  t.notOk(found.isError);
  t.match((found.content as { text: string }[])[0]!.text, /Slug: bitcoin-node-setup/);

  const none = await client.callTool({ name: 'get_sources', arguments: { query: 'quantum physics supercollider' } });
  t.equal(none.isError, true, 'an honest no-match');
  // The client validates structuredContent against the tool's outputSchema, error results included.
  const close = await client.callTool({ name: 'get_sources', arguments: { query: 'secure my home server' } });
  t.equal(close.isError, true, 'a decline');
  const { candidates } = (close.structuredContent as { declined: { candidates: { slug: string }[] } }).declined;
  t.ok(candidates.length >= 2 && candidates.length <= 5, 'names two to five candidates, as data the client accepted');
  const again = await client.callTool({ name: 'get_sources', arguments: { query: candidates[1]!.slug } });
  t.notOk(again.isError, 're-asked with a candidate slug');
  t.equal((again.structuredContent as { category: { slug: string } }).category.slug, candidates[1]!.slug, 'the slug returns that category');
  const scoped = await client.callTool({ name: 'get_sources', arguments: { query: 'rust game tips' } });
  t.match(scoped.structuredContent, { declined: { outOfScope: { slug: 'rust-learning', entries: ['rust game'] } } }, 'a scope refusal, as data the client accepted');

  const list = await client.callTool({ name: 'list_categories', arguments: {} });
  t.match((list.content as { text: string }[])[0]!.text, /10 categories/);
  const prov = await client.callTool({ name: 'get_provenance', arguments: {} });
  t.match((prov.content as { text: string }[])[0]!.text, /Curator: /);
  const end = await client.callTool({ name: 'get_endorsements', arguments: {} });
  t.match((end.content as { text: string }[])[0]!.text, /no endorsements yet/);
  const history = await client.callTool({ name: 'get_history', arguments: {} });
  t.match((history.content as { text: string }[])[0]!.text, /has no signed history: it is signed by this server/);

  await t.rejects(client.callTool({ name: 'get_weather', arguments: {} }), /Unknown tool/, 'unknown tool surfaces as an error');
  t.same(await client.ping(), {});

  const session = transport.sessionId!;
  await transport.terminateSession();
  await client.close();
  const after = await fetch(new URL('/mcp', address), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.equal(after.status, 404, 'the terminated session is gone');
});

t.test('the official v2 client pinned to 2026-07-28 connects statelessly, lists the tools and calls each', async (t) => {
  const v2 = await import('@modelcontextprotocol/client');
  const app = await build(t);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new v2.Client({ name: 'e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const transport = new v2.StreamableHTTPClientTransport(new URL('/mcp', address));
  await client.connect(transport);

  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  t.equal(client.getProtocolEra(), 'modern');
  t.same(client.getDiscoverResult()?.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
  t.equal(client.getServerVersion()?.name, 'three-good-sources');
  t.equal(transport.sessionId, undefined, 'no session in 2026-07-28');

  const { tools } = await client.listTools();
  t.same(tools.map((x) => x.name), ['get_sources', 'get_federated_sources', 'list_categories', 'get_provenance', 'get_endorsements', 'get_history']);
  t.ok(tools.every((x) => x.outputSchema !== undefined), 'every tool has an outputSchema');

  const found = await client.callTool({ name: 'get_sources', arguments: { query: 'harden my ubuntu server' } });
  t.notOk(found.isError);
  t.equal((found.structuredContent as { category: { slug: string } }).category.slug, 'linux-hardening');
  const none = await client.callTool({ name: 'get_sources', arguments: { query: 'quantum physics supercollider' } });
  t.equal(none.isError, true);
  for (const name of ['list_categories', 'get_provenance', 'get_endorsements', 'get_history']) {
    const r = await client.callTool({ name, arguments: {} });
    t.notOk(r.isError, name);
    t.ok(r.structuredContent, `${name}: structured content`);
  }
  await client.close();
});
