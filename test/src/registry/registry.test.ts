import { readFileSync } from 'node:fs';
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

const TYPES = 'documentation, tutorial, video, article, tool, repo, forum, book, course, api';
const endorsement = (extra: Json = {}): Json => ({ pubkey: KEY_A, url: 'https://e.org/', name: 'E', since: '2026-01-01', ...extra });

// One invalid fixture per rule, named by the rule: a mutation of the shipped registry and the exact problems it must give.
const RULES: { rule: string; mutate: (r: Json) => void; expect: string[] }[] = [
  { rule: 'exactly three sources', mutate: (r) => r.categories['rust-learning'].sources.pop(), expect: ['categories.rust-learning.sources: must have exactly 3 items, one source for each rank 1, 2 and 3'] },
  { rule: 'no fourth source', mutate: (r) => r.categories['rust-learning'].sources.push({ ...r.categories['rust-learning'].sources[0], rank: 3, url: 'https://example.com/' }), expect: ['categories.rust-learning.sources: must have exactly 3 items, one source for each rank 1, 2 and 3'] },
  { rule: 'ranks are 1, 2 and 3, each once', mutate: (r) => (r.categories['threat-modeling'].sources[2].rank = 2), expect: ['categories.threat-modeling.sources: ranks must be exactly 1, 2 and 3, each once'] },
  { rule: 'rank is a whole number', mutate: (r) => (r.categories['threat-modeling'].sources[0].rank = 1.5), expect: ['categories.threat-modeling.source in position 1.rank: must be a whole number'] },
  { rule: 'rank is 1 to 3', mutate: (r) => (r.categories['threat-modeling'].sources[2].rank = 4), expect: ['categories.threat-modeling.source in position 3.rank: must be 1, 2 or 3'] },
  { rule: 'slug is lowercase words joined by hyphens', mutate: (r) => (r.categories['Rust_Learning'] = r.categories['rust-learning']), expect: ['categories.Rust_Learning: slug must be lowercase words of letters and digits joined by single hyphens, like rust-learning'] },
  { rule: 'slug has no double hyphen', mutate: (r) => (r.categories['rust--learning'] = r.categories['rust-learning']), expect: ['categories.rust--learning: slug must be lowercase words of letters and digits joined by single hyphens, like rust-learning'] },
  { rule: 'URLs are https', mutate: (r) => (r.categories['nostr-development'].sources[1].url = 'http://nostr.how/en/developers'), expect: ['categories.nostr-development.source rank 2.url: must be an absolute https URL'] },
  { rule: 'URLs are absolute', mutate: (r) => (r.categories['nostr-development'].sources[1].url = '/en/developers'), expect: ['categories.nostr-development.source rank 2.url: must be an absolute https URL'] },
  { rule: 'no URL twice in a category', mutate: (r) => (r.categories['pubky-development'].sources[2].url = r.categories['pubky-development'].sources[0].url), expect: ['categories.pubky-development.source rank 3.url: repeats the URL of source rank 1 in this category'] },
  { rule: 'no unknown field in a source', mutate: (r) => (r.categories['rust-learning'].sources[0].stars = 5), expect: ['categories.rust-learning.source rank 1: unknown field "stars"'] },
  { rule: 'no unknown field in a category', mutate: (r) => (r.categories['rust-learning'].color = 'red'), expect: ['categories.rust-learning: unknown field "color"'] },
  { rule: 'no unknown field at the top', mutate: (r) => (r.signature = 'x'), expect: ['registry: unknown field "signature"'] },
  { rule: 'no unknown field in the curator', mutate: (r) => (r.curator.email = 'a@b.c'), expect: ['curator: unknown field "email"'] },
  { rule: 'required fields', mutate: (r) => delete r.categories['linux-hardening'].description, expect: ['categories.linux-hardening: missing required field "description"'] },
  { rule: 'texts are not empty', mutate: (r) => (r.categories['linux-hardening'].sources[0].why = ''), expect: ['categories.linux-hardening.source rank 1.why: must not be empty'] },
  { rule: 'texts are text', mutate: (r) => (r.categories['linux-hardening'].name = 5), expect: ['categories.linux-hardening.name: must be text in double quotes'] },
  { rule: 'source type from the list', mutate: (r) => (r.categories['linux-hardening'].sources[1].type = 'podcast'), expect: [`categories.linux-hardening.source rank 2.type: must be one of ${TYPES}`] },
  { rule: 'at least one tag', mutate: (r) => (r.categories['rust-learning'].tags = []), expect: ['categories.rust-learning.tags: must list at least 1 tag'] },
  { rule: 'no keyword twice', mutate: (r) => r.categories['rust-learning'].keywords.unshift(r.categories['rust-learning'].keywords[0]), expect: ['categories.rust-learning.keyword 2: repeats keyword 1'] },
  { rule: 'no query pattern twice', mutate: (r) => r.categories['rust-learning'].queryPatterns.unshift(r.categories['rust-learning'].queryPatterns[0]), expect: ['categories.rust-learning.query pattern 2: repeats query pattern 1'] },
  { rule: 'updated is a date', mutate: (r) => (r.updated = 'yesterday'), expect: ['updated: must be a real calendar date written YYYY-MM-DD'] },
  { rule: 'updated is a real calendar date', mutate: (r) => (r.updated = '2026-13-45'), expect: ['updated: must be a real calendar date written YYYY-MM-DD'] },
  { rule: 'updated is no 29 February outside leap years', mutate: (r) => (r.updated = '2026-02-29'), expect: ['updated: must be a real calendar date written YYYY-MM-DD'] },
  { rule: 'version is present', mutate: (r) => delete r.version, expect: ['registry: missing required field "version"'] },
  { rule: 'version is a semantic version', mutate: (r) => (r.version = 'banana'), expect: ['version: must be a semantic version such as 1.0.0 or 1.1.0-beta.1'] },
  { rule: 'version has three numbers', mutate: (r) => (r.version = '1.0'), expect: ['version: must be a semantic version such as 1.0.0 or 1.1.0-beta.1'] },
  { rule: 'version has no "v"', mutate: (r) => (r.version = 'v1.0.0'), expect: ['version: must be a semantic version such as 1.0.0 or 1.1.0-beta.1'] },
  { rule: 'categories is an object', mutate: (r) => (r.categories = []), expect: ['categories: must be an object ({ ... })'] },
  { rule: 'endorsements are well-formed', mutate: (r) => r.endorsements.push({ pubkey: KEY_A, url: 'https://e.org/', name: 'E' }), expect: ['endorsement 1: missing required field "since"'] },
  { rule: 'endorsement URLs are https', mutate: (r) => r.endorsements.push(endorsement({ url: 'ftp://e.org/' })), expect: ['endorsement 1.url: must be an absolute https URL'] },
  { rule: 'endorsement keys are z-base-32', mutate: (r) => r.endorsements.push(endorsement({ pubkey: 'not-a-key' })), expect: ['endorsement 1.pubkey: must be a z-base-32 Ed25519 public key (52 characters)'] },
  { rule: 'endorsement dates are calendar dates', mutate: (r) => r.endorsements.push(endorsement({ since: '2026-04-31' })), expect: ['endorsement 1.since: must be a real calendar date written YYYY-MM-DD'] },
  { rule: 'no endorser twice', mutate: (r) => r.endorsements.push(endorsement(), endorsement({ url: 'https://f.org/' })), expect: ['endorsement 2.pubkey: repeats the endorser of endorsement 1'] },
];

t.test('each registry rule rejects its invalid fixture by path and rule', async (t) => {
  for (const { rule, mutate, expect } of RULES) {
    const data = fresh();
    mutate(data);
    const check = validateRegistry(data);
    t.same(check.ok ? [] : check.problems, expect, rule);
  }
});

t.test('what the rules let through: real dates, every form of semantic version', async (t) => {
  for (const [field, value] of [['updated', '2028-02-29'], ['version', '0.1.0'], ['version', '10.20.30'], ['version', '1.1.0-beta.1'], ['version', '1.0.0-rc.1+build.5']]) {
    const check = validateRegistry({ ...fresh(), [field!]: value });
    t.equal(check.ok, true, `${field} ${value}: ${check.ok ? '' : check.problems.join('; ')}`);
  }
});

t.test('a source is named by its rank, not by where it sits in the list', async (t) => {
  const data = fresh();
  data.categories['nostr-development'].sources.reverse();
  data.categories['nostr-development'].sources[0].url = 'http://github.com/nbd-wtf/nostr-tools';
  data.categories['nostr-development'].sources[2].why = '';
  const check = validateRegistry(data);
  t.same(check.ok ? [] : check.problems, ['categories.nostr-development.source rank 1.why: must not be empty', 'categories.nostr-development.source rank 3.url: must be an absolute https URL'], 'both at once');
  data.categories['nostr-development'].sources[2].why = 'The specifications.';
  const urls = validateRegistry(data);
  t.same(urls.ok ? [] : urls.problems, ['categories.nostr-development.source rank 3.url: must be an absolute https URL']);
});

t.test('no message speaks Ajv or counts from 0', async (t) => {
  const data = fresh();
  // Every rule broken at once, except those that would hide the others.
  for (const { rule, mutate } of RULES) if (!/fourth|three sources|ranks are|categories is/.test(rule)) mutate(data);
  data.categories['rust-learning'].keywords.push('');
  const check = validateRegistry(data);
  t.equal(check.ok, false);
  const problems = check.ok ? [] : check.problems;
  t.ok(problems.length >= 10, `${problems.length} problems at once`);
  for (const problem of problems) {
    const [path] = problem.split(': ');
    t.notMatch(problem, /must NOT|##|must match|must be (integer|string|object|array|equal)|characters\b.*fewer|pattern "/, problem);
    t.notMatch(path, /\.\d+(\.|$)|\/|\[/, `${problem}: a path a curator reads`);
  }
});

t.test('a registry that is not an object is rejected, not crashed on', async (t) => {
  for (const data of [null, 42, 'registry', []]) {
    const check = validateRegistry(data);
    t.same(check.ok ? [] : check.problems, ['registry: must be an object ({ ... })'], JSON.stringify(data));
  }
});

t.test('an empty registry is valid', async (t) => {
  const check = validateRegistry({ ...fresh(), categories: {} });
  t.equal(check.ok, true);
});

const dir = await mkdtemp(join(tmpdir(), '3gs-registry-'));

t.test('loadRegistry names the file and the problem', async (t) => {
  const broken = join(dir, 'broken.json');
  await writeFile(broken, '{"version": ');
  await t.rejects(loadRegistry(broken), RegistryError);
  await t.rejects(loadRegistry(broken), { message: `invalid registry ${broken}:\n  registry: not valid JSON at line 1, column 13: a value was expected` });
  await t.rejects(loadRegistry(join(dir, 'missing.json')), { message: /registry: cannot read the file \(ENOENT\)$/ });
  const invalid = join(dir, 'invalid.json');
  const data = fresh();
  data.categories['rust-learning'].sources.pop();
  await writeFile(invalid, JSON.stringify(data));
  await t.rejects(loadRegistry(invalid), { message: /categories\.rust-learning\.sources: must have exactly 3 items/ });
});

/** The problems loadRegistry throws for `file`, as the server prints them one per line. */
const problemsOf = (file: string): Promise<readonly string[]> =>
  loadRegistry(file).then(
    () => [],
    (err: unknown) => (err instanceof RegistryError ? err.problems : [String(err)])
  );

t.test('a JSON syntax error is placed by line and column', async (t) => {
  const cases: [string, string][] = [
    ['{\n  "version": "1.0.0",\n  "updated" "2026-01-01"\n}', 'line 3, column 13: a colon was expected'],
    ['{\n  "version": "1.0.0",\n}', 'line 3, column 1: a field name in double quotes was expected'],
    ['{\n\t"a": [1, 2\n}', 'line 3, column 1: a comma or a closing bracket was expected'],
    ['{"a": [1, 2', 'line 1, column 12: a closing ] was expected'],
    ['{"a": "é"} // note', 'line 1, column 12: JSON has no comments'],
    ['\uFEFF{}', 'line 1, column 1: the file starts with a byte-order mark; save it as UTF-8 without one'],
  ];
  for (const [text, where] of cases) {
    const file = join(dir, 'syntax.json');
    await writeFile(file, text);
    t.same(await problemsOf(file), [`registry: not valid JSON at ${where}`], JSON.stringify(text));
  }
  const empty = join(dir, 'empty.json');
  await writeFile(empty, '\n');
  t.same(await problemsOf(empty), ['registry: not valid JSON: the file is empty']);
});

/** The runs of `length` characters of `secret`: none may show in a message. */
const pieces = (secret: string, length = 5): string[] => Array.from({ length: secret.length - length + 1 }, (_, i) => secret.slice(i, i + length));

t.test('a secret file named as the registry is never quoted', async (t) => {
  // Fake secrets in the shapes people keep: a hex seed (keygen's format), a PEM key, a token.
  const secrets = [
    'c0ffee1234deadbeefc0ffee1234deadbeefc0ffee1234deadbeefc0ffee1234\n',
    '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n-----END PRIVATE KEY-----\n',
    'sk_live_Zq8XvB3nR7tY2pLk9WmA',
    '{"token": sk_live_Zq8XvB3nR7tY2pLk9WmA}',
  ];
  for (const secret of secrets) {
    const file = join(dir, 'curator.key');
    await writeFile(file, secret);
    const error = await loadRegistry(file).then(() => undefined, (err: Error) => err);
    t.type(error, RegistryError, JSON.stringify(secret));
    const message = error?.message ?? '';
    t.match(message, /not valid JSON at line \d+, column \d+/);
    const leaked = pieces(secret.trim()).filter((piece) => message.includes(piece));
    t.same(leaked, [], `${message} quotes nothing of the secret`);
  }
});

t.test('every problem is reported at once: a bad version does not hide a bad URL or a duplicated endorser (issue 24, item 4)', async (t) => {
  const data = JSON.parse(readFileSync(SHIPPED_REGISTRY, 'utf8'));
  data.version = 'one';
  const slug = Object.keys(data.categories)[0]!;
  data.categories[slug].sources[0].url = 'http://example.org/plain-http';
  const endorsement = { name: 'Peer', url: 'https://peer.example.org/', pubkey: 'a'.repeat(43), since: '2026-10-01' };
  data.endorsements = [endorsement, { ...endorsement, name: 'Peer again' }];
  data.categories[slug].sources[1].rank = 'first';
  const check = validateRegistry(data);
  t.equal(check.ok, false);
  const problems = check.ok ? [] : check.problems;
  t.ok(problems.some((p) => p.startsWith('version:')), 'the version (a schema rule)');
  t.ok(problems.some((p) => p.includes(`${slug}.source rank 1.url:`)), 'the plain-http URL (a rule the schema cannot say)');
  t.ok(problems.some((p) => p.startsWith('endorsements.2.pubkey:') || p.includes('repeats the endorser')), 'the repeated endorser');
  t.ok(problems.some((p) => p.includes('rank')), 'the malformed rank');
  t.equal(new Set(problems).size, problems.length, 'no problem twice');
});
