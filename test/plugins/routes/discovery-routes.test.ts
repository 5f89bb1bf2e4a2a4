import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import t from 'tap';
import { MAX_DESCRIPTION } from '../../../src/discovery/server-card.js';
import { packageVersion } from '../../../src/project.js';
import { build, fixture, ROOT } from '../../helpers/build.js';

/** The official MCP Registry's server.json schema, vendored (test/fixtures/vendor/README.md says from where). */
function registrySchema () {
  const ajv = new Ajv({ allErrors: true, strict: false });
  formats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(fixture('vendor', 'mcp-registry-server.schema.json'), 'utf8')));
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; mcpName: string };

t.test('server.json, for listing in the official MCP Registry, is valid against its published schema and agrees with package.json (issue 24, item 17)', async (t) => {
  const server = JSON.parse(readFileSync(join(ROOT, 'server.json'), 'utf8'));
  const validate = registrySchema();
  t.ok(validate(server), JSON.stringify(validate.errors));
  t.equal(server.$schema, 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json', 'the schema it was checked against');
  t.equal(server.name, pkg.mcpName, "its name is package.json's mcpName (the registry checks the npm package names it)");
  t.equal(server.version, pkg.version);
  t.equal(server.packages[0].identifier, pkg.name);
  t.equal(server.packages[0].version, pkg.version);
  t.same(server.packages[0].packageArguments, [{ type: 'positional', value: 'serve' }], 'run as npx three-good-sources serve');
  t.notOk(validate({ ...server, name: 'no-slash' }), 'the vendored schema does refuse a bad name');
});

t.test('GET /.well-known/mcp/server-card.json: the server card, from live data, valid against the registry schema and readable from any origin', async (t) => {
  const app = await build(t);
  const res = await app.inject({ method: 'GET', url: '/.well-known/mcp/server-card.json', headers: { host: 'localhost:3000', origin: 'https://elsewhere.example' } });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers['access-control-allow-origin'], '*', 'CORS-readable from any origin');
  const card = res.json();
  const validate = registrySchema();
  t.ok(validate(card), JSON.stringify(validate.errors));
  t.match(card, { name: pkg.mcpName, title: 'Three Good Sources', version: packageVersion(), remotes: [{ type: 'streamable-http', url: 'http://localhost:3000/mcp' }] });
  t.match(card.description, /^Three human-vetted sources for each of 10 topics, curated by Three Good Sources curators\.$/, "the registry's own count and curator");
  t.ok(card.description.length <= MAX_DESCRIPTION);
});

t.test('the server card follows the registry served now and the scheme a trusted proxy forwards; a long curator name is cut to fit', async (t) => {
  const data = JSON.parse(readFileSync(fixture('registry-lint.json'), 'utf8'));
  data.curator.name = 'A curator whose chosen name is far longer than any description of a server may be in the registry';
  const file = join(await mkdtemp(join(tmpdir(), '3gs-card-')), 'registry.json');
  await writeFile(file, JSON.stringify(data));
  const app = await build(t, { registryPath: file, trustProxy: ['127.0.0.1'], host: '0.0.0.0' });
  const res = await app.inject({ method: 'GET', url: '/.well-known/mcp/server-card.json', headers: { host: '3gs.example.org', 'x-forwarded-proto': 'https' }, remoteAddress: '127.0.0.1' });
  const card = res.json();
  t.match(card.description, /^Three human-vetted sources for each of 3 topics, curated by A curator .*\.\.\.\.$/);
  t.ok(card.description.length <= MAX_DESCRIPTION, `${card.description.length} characters`);
  t.equal(card.remotes[0].url, 'https://3gs.example.org/mcp', 'the public URL the proxy forwards');
  t.ok(registrySchema()(card));
});

t.test('the card names a forwarded host only when ALLOWED_HOSTS does, a scheme only http or https, and PUBLIC_URL over both (issue 31, finding 4)', async (t) => {
  const card = async (config: Parameters<typeof build>[1], headers: Record<string, string>) => {
    const app = await build(t, { trustProxy: ['127.0.0.1'], host: '0.0.0.0', ...config });
    return app.inject({ method: 'GET', url: '/.well-known/mcp/server-card.json', headers, remoteAddress: '127.0.0.1' });
  };
  const forged = { host: '3gs.example.org', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' };
  t.equal((await card({}, forged)).json().remotes[0].url, 'http://3gs.example.org/mcp', 'an unlisted forwarded host and an odd scheme are not repeated');
  const listed = await card({ allowedHosts: ['mirror.example.net'] }, { ...forged, 'x-forwarded-host': 'mirror.example.net', 'x-forwarded-proto': 'https' });
  t.equal(listed.json().remotes[0].url, 'https://mirror.example.net/mcp', 'a listed forwarded host and https are');
  const fixed = await card({ publicUrl: 'https://3gs.example.org' }, forged);
  t.equal(fixed.json().remotes[0].url, 'https://3gs.example.org/mcp', 'PUBLIC_URL whatever the headers say');
  t.notMatch(String(fixed.headers.vary ?? ''), /Host/, 'and then one card for every host');
  const noHost = await card({}, { host: 'bad host!' });
  t.equal(noHost.statusCode, 400);
  t.match(noHost.json().message, /set PUBLIC_URL/);
});
