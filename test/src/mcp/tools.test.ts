import { Ajv2020 } from 'ajv/dist/2020.js';
import t from 'tap';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareCatalog } from '../../../src/catalog.js';
import { callTool, listTools } from '../../../src/mcp/tools/toolbox.js';
import { keyFromSeed } from '../../../src/provenance/keys.js';
import { SHIPPED_REGISTRY, TEST_SEED, otherPublicKey } from '../../helpers/build.js';

const key = keyFromSeed(TEST_SEED);
const dir = await mkdtemp(join(tmpdir(), '3gs-tools-'));
const endorsedFile = join(dir, 'endorsed.json');
await writeFile(
  endorsedFile,
  JSON.stringify({
    ...JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')),
    endorsements: [{ pubkey: otherPublicKey(), url: 'https://peer.example.org/', name: 'Peer', since: '2026-10-01' }],
  }),
);
const catalogs = {
  shipped: await prepareCatalog(SHIPPED_REGISTRY, key, 0.4),
  endorsed: await prepareCatalog(endorsedFile, key, 0.4),
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
  t.equal(none.structuredContent, undefined, 'no structured content on a tool error');
});

t.test('every tool has a title and read-only annotations', async (t) => {
  for (const tool of listTools('2025-11-25') as { name: string; title: string; annotations: Record<string, unknown> }[]) {
    t.type(tool.title, 'string');
    t.same(tool.annotations, { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }, tool.name);
  }
});
