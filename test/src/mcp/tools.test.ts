import { Ajv2020 } from 'ajv/dist/2020.js';
import t from 'tap';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prepareCatalog } from '../../../src/catalog.js';
import { projectRepository, verificationRecipes } from '../../../src/provenance/facts.js';
import { callTool, listTools } from '../../../src/mcp/tools/toolbox.js';
import { signatureDocument } from '../../../src/provenance/signature.js';
import { keyFromSeed } from '../../../src/provenance/keys.js';
import { SHIPPED_REGISTRY, TEST_SEED, otherPublicKey, serverSigning } from '../../helpers/build.js';

const key = keyFromSeed(TEST_SEED);
const run = promisify(execFile);
const dir = await mkdtemp(join(tmpdir(), '3gs-tools-'));
const endorsedFile = join(dir, 'endorsed.json');
await writeFile(
  endorsedFile,
  JSON.stringify({
    ...JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')),
    endorsements: [{ pubkey: otherPublicKey(), url: 'https://peer.example.org/', name: 'Peer', since: '2026-10-01' }],
  })
);
const catalogs = {
  shipped: await prepareCatalog(SHIPPED_REGISTRY, serverSigning(key), 0.4),
  endorsed: await prepareCatalog(endorsedFile, serverSigning(key), 0.4),
};

const CALLS: [string, Record<string, unknown>][] = [
  ['get_sources', { query: 'learn rust programming' }],
  ['get_sources', { query: 'how do I run a bitcoin full node' }],
  ['get_sources', { query: 'self-hosted email with dkim' }],
  ['list_categories', {}],
  ['get_provenance', {}],
  ['get_endorsements', {}],
];

t.test("every tool's structuredContent validates against its outputSchema (Ajv, JSON Schema 2020-12)", async (t) => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const tools = listTools('2026-07-28') as { name: string; outputSchema: object; inputSchema: object }[];
  const validators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema)]));
  for (const tool of tools) {
    t.equal((tool.outputSchema as { type: string }).type, 'object', `${tool.name}: object root, usable by 2025-06-18 clients`);
    t.doesNotThrow(() => new Ajv2020({ strict: true }).compile(tool.inputSchema), `${tool.name}: inputSchema is valid 2020-12`);
  }
  for (const [label, catalog] of Object.entries(catalogs)) {
    for (const [name, args] of CALLS) {
      const result = callTool({ name, arguments: args }, catalog);
      t.notOk(result.isError, `${label} ${name}: succeeds`);
      const validate = validators.get(name)!;
      t.ok(validate(result.structuredContent), `${label} ${name} ${JSON.stringify(args)}: ${JSON.stringify(validate.errors)}`);
    }
  }
});

t.test('structured and plain text say the same thing', async (t) => {
  const catalog = catalogs.shipped;
  const r = callTool({ name: 'get_sources', arguments: { query: 'learn rust programming' } }, catalog);
  const data = r.structuredContent as { category: { slug: string }; sources: { rank: number; url: string }[]; score: number };
  t.equal(data.category.slug, 'rust-learning');
  t.same(data.sources.map((s) => s.rank), [1, 2, 3]);
  for (const s of data.sources) t.match(r.content[0]!.text, s.url);
  t.match(r.content[0]!.text, `Match score: ${data.score.toFixed(3)}`);
  const none = callTool({ name: 'get_sources', arguments: { query: 'quantum physics supercollider' } }, catalog);
  t.equal(none.isError, true);
  const declined = (none.structuredContent as {
    declined: { reason: string; candidates: { slug: string; name: string; score: number }[]; availableSlugs: string[] };
  }).declined;
  t.equal(declined.reason, 'below-threshold', 'a decline says why, as data');
  t.same(declined.availableSlugs, Object.keys(catalog.registry.categories).sort());
  for (const c of declined.candidates) t.match(none.content[0]!.text, `${c.name} (slug: ${c.slug}, score ${c.score.toFixed(3)})`, 'each candidate in the data is in the text');
});

t.test('every tool has a title and read-only annotations', async (t) => {
  for (const tool of listTools('2025-11-25') as { name: string; title: string; annotations: Record<string, unknown> }[]) {
    t.type(tool.title, 'string');
    t.same(tool.annotations, { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }, tool.name);
  }
});

t.test('get_provenance: verification needs only the server URL and openssl, then our CLI from a checkout', async (t) => {
  const catalog = catalogs.shipped;
  const result = callTool({ name: 'get_provenance', arguments: {} }, catalog);
  const text = result.content[0]!.text;
  const data = result.structuredContent as { verification: string[]; recipes: { openssl: string[]; cli: string[] } };
  const how = text.slice(text.indexOf('How to verify:'));
  t.match(how, /^1\. With openssl 3 and coreutils alone, in an empty folder \(replace <this server's base URL> with the address you reach this server at: its \/mcp URL without \/mcp\):$/m, 'openssl first');
  t.match(how, /^2\. With our command-line tool, from a checkout of this project \(the package is not published on npm\), inside the checkout:$/m);
  t.ok(how.indexOf('openssl pkeyutl') < how.indexOf('npx three-good-sources verify'), 'the CLI comes second');
  t.notMatch(how, /github\.com|git clone/, 'no invented repository URL: package.json names none');
  t.same(data.recipes.cli, ['npm install', `npx three-good-sources verify <this server's base URL> --pubkey ${key.publicKey}`]);
  for (const line of [...data.recipes.openssl, ...data.recipes.cli]) t.ok(data.verification.includes(`   ${line}`), `the text shows: ${line}`);

  // Serve the catalog's signed bytes as /registry and /registry/signature do, and run the steps as the text gives them.
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/registry/signature' ? JSON.stringify(signatureDocument(catalog.signed)) : catalog.signed.canonical);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const script = data.recipes.openssl.join('\n').replaceAll("<this server's base URL>", address);
  const cwd = await mkdtemp(join(tmpdir(), '3gs-provenance-'));
  const { stdout } = await run('sh', ['-e', '-c', script], { cwd, timeout: 30_000 });
  t.match(stdout, /Signature Verified Successfully/);
  t.match(stdout, `${catalog.signed.sha256}  registry.signed.json`, 'sha256sum prints the digest the text announces');
  t.match(how, `sha256sum prints ${catalog.signed.sha256}`);
});

t.test('get_provenance: with a repository in package.json, the CLI step clones it', async (t) => {
  const root = await mkdtemp(join(tmpdir(), '3gs-package-'));
  const repository = async (value: unknown) => {
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'three-good-sources', ...(value === undefined ? {} : { repository: value }) }));
    return projectRepository(root);
  };
  t.equal(await repository(undefined), undefined);
  t.equal(await repository('owner/three-good-sources'), 'https://github.com/owner/three-good-sources.git');
  t.equal(await repository({ type: 'git', url: 'git+https://git.example.org/3gs.git' }), 'https://git.example.org/3gs.git');
  t.equal(await repository('git@github.com:owner/3gs.git'), undefined, 'only https: what anyone can clone');
  const cli = verificationRecipes(key.publicKey, { repository: 'https://git.example.org/3gs.git' }).cli;
  t.same(cli.slice(0, 3), ["git clone 'https://git.example.org/3gs.git' three-good-sources", 'cd three-good-sources', 'npm install']);
});

t.test("every tool's error results have one shape, error: { reason, message }, valid against the tool's outputSchema (issue 33, item 4)", async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.5);
  const ajv = new Ajv2020({ strict: false });
  const schemas = new Map((listTools('2025-11-25') as { name: string; outputSchema: object }[]).map((tool) => [tool.name, ajv.compile(tool.outputSchema)]));
  const cases: [string, Record<string, unknown>, string][] = [
    ['get_sources', { query: 'xyzzy plugh quux' }, 'below-threshold'],
    ['get_sources', { query: 'rust' }, 'too-vague'],
    ['get_federated_sources', { query: 'xyzzy plugh quux' }, 'no-match'],
    ['get_federated_sources', { query: 'rust' }, 'too-vague'],
    ['get_history', { since: '2026-02-30' }, 'since-not-a-date'],
    ['get_history', { category: 'no-such-topic' }, 'unknown-category'],
  ];
  for (const [name, args, reason] of cases) {
    const result = callTool({ name, arguments: args }, catalog);
    const label = `${name} ${JSON.stringify(args)}`;
    t.equal(result.isError, true, label);
    const text = result.content[0]!.type === 'text' ? result.content[0]!.text : '';
    t.same((result.structuredContent as { error: unknown }).error, { reason, message: text }, `${label}: error.reason ${reason}, error.message the text`);
    const validate = schemas.get(name)!;
    t.ok(validate(result.structuredContent), `${label}: valid against its outputSchema ${JSON.stringify(validate.errors ?? [])}`);
  }
});
