import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { RegistryError, loadRegistry } from '../../../src/registry/load.js';
import { validateRegistry } from '../../../src/registry/validate.js';
import { SHIPPED_REGISTRY, otherPublicKey } from '../../helpers/build.js';
import shipped from '../../../registry.json' with { type: 'json' };

type Json = Record<string, any>;
const KEY_A = otherPublicKey();
const fresh = (): Json => structuredClone(shipped) as Json;

t.test('the shipped registry is valid and holds the ten launch categories', async (t) => {
  const registry = await loadRegistry(SHIPPED_REGISTRY);
  t.same(Object.keys(registry.categories).sort(), [
    'bitcoin-node-setup', 'home-automation-private', 'linux-hardening', 'mcp-development', 'nostr-development',
    'password-management', 'pubky-development', 'rust-learning', 'self-hosted-email', 'threat-modeling',
  ]);
  const names = Object.fromEntries(Object.entries(registry.categories).map(([slug, c]) => [slug, c.name]));
  t.equal(names['home-automation-private'], 'Privacy-Respecting Home Automation');
  t.equal(names['linux-hardening'], 'Linux Security Hardening');
  t.equal(names['nostr-development'], 'Nostr Protocol Development');
  for (const [slug, c] of Object.entries(registry.categories)) {
    t.same(c.sources.map((s) => s.rank), [1, 2, 3], `${slug}: three sources in rank order`);
    t.ok(c.queryPatterns.length >= 12, `${slug}: at least 12 query patterns`);
    t.ok(c.tags.length >= 1, `${slug}: has domain tags`);
    const hosts = c.sources.map((s) => new URL(s.url).host + (new URL(s.url).host === 'github.com' ? new URL(s.url).pathname.split('/').slice(0, 3).join('/') : ''));
    t.equal(new Set(hosts).size, 3, `${slug}: no two sources from the same site`);
  }
  t.ok(Object.isFrozen(registry.categories['rust-learning']!.sources[0]), 'what the server holds cannot be changed');
});

t.test('the flawed launch sources are fixed', async (t) => {
  const registry = await loadRegistry(SHIPPED_REGISTRY);
  const urls = Object.values(registry.categories).flatMap((c) => c.sources.map((s) => s.url));
  t.notOk(urls.includes('https://emailselfdefense.fsf.org/'), 'no encryption guide in self-hosted email');
  t.notOk(urls.includes('https://www.home-assistant.io/installation/'), 'home automation: one source per site');
  t.notOk(urls.some((u) => u.includes('github.com/Nuhvi/pkarr')), 'PKARR points at its current home');
  t.ok(urls.includes('https://github.com/pubky/pkarr'));
  t.notOk(urls.includes('https://spec.modelcontextprotocol.io/'), 'MCP spec at its current home');
  t.ok(urls.includes('https://modelcontextprotocol.io/specification/'));
  t.notOk(urls.some((u) => u.includes('/docs/building-mcp-servers')), 'no unknown MCP page');
});

// One invalid fixture per rule, named by the rule: a mutation of the shipped registry and the message it must give.
const RULES: { rule: string; mutate: (r: Json) => void; expect: string }[] = [
  { rule: 'exactly three sources', mutate: (r) => r.categories['rust-learning'].sources.pop(), expect: 'categories.rust-learning.sources: must have exactly 3 items' },
  { rule: 'no fourth source', mutate: (r) => r.categories['rust-learning'].sources.push({ ...r.categories['rust-learning'].sources[0], rank: 4, url: 'https://example.com/' }), expect: 'categories.rust-learning.sources: must have exactly 3 items' },
  { rule: 'ranks are 1, 2 and 3', mutate: (r) => (r.categories['threat-modeling'].sources[2].rank = 2), expect: 'categories.threat-modeling.sources: ranks must be exactly 1, 2 and 3' },
  { rule: 'rank is an integer', mutate: (r) => (r.categories['threat-modeling'].sources[0].rank = 1.5), expect: 'categories.threat-modeling.sources.0.rank: must be integer' },
  { rule: 'slug is lowercase words joined by hyphens', mutate: (r) => (r.categories['Rust_Learning'] = r.categories['rust-learning']), expect: 'categories.Rust_Learning: slug must be lowercase words joined by hyphens' },
  { rule: 'slug has no double hyphen', mutate: (r) => (r.categories['rust--learning'] = r.categories['rust-learning']), expect: 'categories.rust--learning: slug must be lowercase words joined by hyphens' },
  { rule: 'URLs are https', mutate: (r) => (r.categories['nostr-development'].sources[1].url = 'http://nostr.how/en/developers'), expect: 'categories.nostr-development.sources.1.url: must be an absolute https URL' },
  { rule: 'URLs are absolute', mutate: (r) => (r.categories['nostr-development'].sources[1].url = '/en/developers'), expect: 'categories.nostr-development.sources.1.url: must be an absolute https URL' },
  { rule: 'no URL twice in a category', mutate: (r) => (r.categories['pubky-development'].sources[2].url = r.categories['pubky-development'].sources[0].url), expect: 'categories.pubky-development.sources.2.url: must not repeat a URL already in this category' },
  { rule: 'no unknown field in a source', mutate: (r) => (r.categories['rust-learning'].sources[0].stars = 5), expect: 'categories.rust-learning.sources.0: unknown field "stars"' },
  { rule: 'no unknown field in a category', mutate: (r) => (r.categories['rust-learning'].color = 'red'), expect: 'categories.rust-learning: unknown field "color"' },
  { rule: 'no unknown field at the top', mutate: (r) => (r.signature = 'x'), expect: 'registry: unknown field "signature"' },
  { rule: 'no unknown field in the curator', mutate: (r) => (r.curator.email = 'a@b.c'), expect: 'curator: unknown field "email"' },
  { rule: 'required fields', mutate: (r) => delete r.categories['linux-hardening'].description, expect: 'categories.linux-hardening: missing required field "description"' },
  { rule: 'source type from the list', mutate: (r) => (r.categories['linux-hardening'].sources[1].type = 'podcast'), expect: 'categories.linux-hardening.sources.1.type: must be one of documentation, tutorial, video, article, tool, repo, forum, book, course, api' },
  { rule: 'updated is a date', mutate: (r) => (r.updated = 'yesterday'), expect: 'updated: must match' },
  { rule: 'version is present', mutate: (r) => delete r.version, expect: 'registry: missing required field "version"' },
  { rule: 'categories is an object', mutate: (r) => (r.categories = []), expect: 'categories: must be object' },
  { rule: 'endorsements are well-formed', mutate: (r) => r.endorsements.push({ pubkey: KEY_A, url: 'https://e.org/', name: 'E' }), expect: 'endorsements.0: missing required field "since"' },
  { rule: 'endorsement URLs are https', mutate: (r) => r.endorsements.push({ pubkey: KEY_A, url: 'ftp://e.org/', name: 'E', since: '2026-01-01' }), expect: 'endorsements.0.url: must be an absolute https URL' },
  { rule: 'endorsement keys are z-base-32', mutate: (r) => r.endorsements.push({ pubkey: 'not-a-key', url: 'https://e.org/', name: 'E', since: '2026-01-01' }), expect: 'endorsements.0.pubkey: must be a z-base-32 public key (52 characters)' },
  { rule: 'endorsement dates are ISO dates', mutate: (r) => r.endorsements.push({ pubkey: KEY_A, url: 'https://e.org/', name: 'E', since: 'last year' }), expect: 'endorsements.0.since: must match' },
  {
    rule: 'no endorser twice',
    mutate: (r) => r.endorsements.push({ pubkey: KEY_A, url: 'https://e.org/', name: 'E', since: '2026-01-01' }, { pubkey: KEY_A, url: 'https://f.org/', name: 'F', since: '2026-01-02' }),
    expect: 'endorsements.1.pubkey: must not repeat an endorser already listed',
  },
];

t.test('each registry rule rejects its invalid fixture by path and rule', async (t) => {
  for (const { rule, mutate, expect } of RULES) {
    const data = fresh();
    mutate(data);
    const check = validateRegistry(data);
    t.equal(check.ok, false, `${rule}: rejected`);
    if (!check.ok) t.ok(check.problems.some((p) => p.startsWith(expect)), `${rule}: "${expect}" in ${JSON.stringify(check.problems)}`);
  }
});

t.test('a registry that is not an object is rejected, not crashed on', async (t) => {
  for (const data of [null, 42, 'registry', []]) {
    const check = validateRegistry(data);
    t.equal(check.ok, false, JSON.stringify(data));
  }
});

t.test('an empty registry is valid', async (t) => {
  const check = validateRegistry({ ...fresh(), categories: {} });
  t.equal(check.ok, true);
});

t.test('loadRegistry names the file and the problem', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), '3gs-registry-'));
  const broken = join(dir, 'broken.json');
  await writeFile(broken, '{"version": ');
  await t.rejects(loadRegistry(broken), RegistryError);
  await t.rejects(loadRegistry(broken), { message: /broken\.json[\s\S]*not valid JSON/ });
  await t.rejects(loadRegistry(join(dir, 'missing.json')), { message: /cannot read the file \(ENOENT\)/ });
  const invalid = join(dir, 'invalid.json');
  const data = fresh();
  data.categories['rust-learning'].sources.pop();
  await writeFile(invalid, JSON.stringify(data));
  await t.rejects(loadRegistry(invalid), { message: /categories\.rust-learning\.sources: must have exactly 3 items/ });
});
