import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildMatcher } from '../../../src/matcher/matcher.js';
import { registryFromBytes } from '../../../src/registry/load.js';
import { binaryOnPath } from '../../helpers/binary.js';
import { ROOT, SHIPPED_REGISTRY, build, rpc } from '../../helpers/build.js';
import { cli } from '../../helpers/signed.js';
import { waitFor } from '../../helpers/wait.js';

const TOKEN = 'triage-test-token-0123456789';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' };
// What twelve clients ask (k is 5 distinct client buckets of 64: five clients fill five buckets
// only about 85% of the time; twelve fill at least five all but always): three ways of asking one
// question the hardening category does not yet know how people put, a topic nobody covers, and
// questions it answers.
const NEAR = ['rotate ssh keys every quarter', 'how often to rotate ssh keys', 'rotate my ssh keys yearly'];
const TRAFFIC = [...NEAR, 'recipe for banana bread loaf', 'banana bread without eggs', 'learn rust programming', 'harden ssh on my ubuntu server'];

const dir = await mkdtemp(join(tmpdir(), '3gs-triage-'));

async function replayed (test: typeof t): Promise<FastifyInstance> {
  const app = await build(test, { demandToken: TOKEN });
  for (let c = 0; c < 12; c++) {
    for (const query of TRAFFIC) {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query }, _meta: META } };
      await rpc(app, body, HEADERS, { remoteAddress: `10.7.${c}.1` });
    }
  }
  return app;
}

const app = await replayed(t);
const report = (await app.inject({ method: 'GET', url: '/demand', headers: { authorization: `Bearer ${TOKEN}` } })).json();
const reportFile = join(dir, 'report.json');
await writeFile(reportFile, JSON.stringify(report));
const shipped = await readFile(SHIPPED_REGISTRY);

t.test('triage --json: each suggestion with what it would answer and which example questions it would move (issue 32)', async (t) => {
  const res = await cli('triage', SHIPPED_REGISTRY, '--demand-file', reportFile, '--json');
  t.equal(res.code, 0, res.err);
  type Judged = { suggestion: { kind: string; slug: string; text: string }; consequence: { answers: string[]; moves: unknown[] }; skipped?: string };
  const { suggestions } = JSON.parse(res.out) as { suggestions: Judged[] };
  const taken = suggestions.filter((s) => s.skipped === undefined);
  t.ok(taken.length >= 1, 'one suggestion at least is taken');
  t.same(new Set(taken.map((s) => s.suggestion.slug)), new Set(['linux-hardening']), 'for the category the questions came closest to');
  t.equal(taken[0]!.suggestion.kind, 'example-question');
  t.match(taken[0]!.suggestion.text, /ssh keys/, 'in the askers\' words');
  t.ok(taken[0]!.consequence.answers.length >= 2, `it answers others asked too: ${taken[0]!.consequence.answers.join(', ')}`);
  t.same(taken[0]!.consequence.moves, [], 'and moves no example question');
  t.notOk(suggestions.some((s) => /banana/.test(s.suggestion.text)), 'a topic nobody covers is no edit of a category');
});

t.test('triage --accept-all --out: the registry with the suggestions taken, no new warning from check, and the questions now answered', async (t) => {
  const out = join(dir, 'accepted.json');
  const res = await cli('triage', SHIPPED_REGISTRY, '--demand-file', reportFile, '--accept-all', '--out', out);
  t.equal(res.code, 0, res.err);
  t.match(res.out, /^from demand: \d+ questions, 1 category \(\d+ of \d+ suggestions taken, 1 category changed\); written to .*accepted\.json$/m);
  t.match(res.out, /^check it, then sign it with its note: three-good-sources sign .*accepted\.json --key <your key file> --note "from demand: \d+ questions, 1 category"$/m, 'the signing that records where the changes came from');
  const written = registryFromBytes(await readFile(out));
  if (!written.ok) throw new Error(written.problems.join());
  const matcher = buildMatcher(written.registry);
  for (const q of NEAR) {
    const o = matcher.match(q);
    t.equal(o.kind === 'match' ? o.slug : o.reason, 'linux-hardening', `"${q}" answered`);
  }
  const before = (await cli('check', SHIPPED_REGISTRY)).out.split('\n').filter((l) => l.startsWith('warning')).length;
  const after = (await cli('check', out)).out.split('\n').filter((l) => l.startsWith('warning')).length;
  t.ok(after <= before, `no new warning (${before} before, ${after} after)`);
});

t.test('triage refuses bad input in one line, exit 1, and writes nothing', async (t) => {
  const out = join(dir, 'never.json');
  const cases: [string, string[], RegExp][] = [];
  const foreign = join(dir, 'foreign.json');
  await writeFile(foreign, JSON.stringify({ ...report, nearMisses: [{ slug: 'sourdough-baking', name: 'Sourdough', declined: 5, unknownWords: [], queries: [] }] }));
  cases.push(['a report from another registry', ['--demand-file', foreign], /names categories .* does not have \(sourdough-baking\): it comes from another registry/]);
  const truncated = join(dir, 'truncated.json');
  await writeFile(truncated, JSON.stringify(report).slice(0, 80));
  cases.push(['a truncated report', ['--demand-file', truncated], /is not JSON: save the output of demand --json/]);
  const other = join(dir, 'other.json');
  await writeFile(other, '{"hello": "world"}');
  cases.push(['JSON that is no report', ['--demand-file', other], /is not a demand report \(.*\): save the output of demand --json/]);
  cases.push(['a missing report', ['--demand-file', join(dir, 'missing.json')], /cannot read .*missing\.json \(ENOENT\)/]);
  for (const [what, args, message] of cases) {
    const res = await cli('triage', SHIPPED_REGISTRY, ...args, '--accept-all', '--out', out);
    t.equal(res.code, 1, what);
    t.match(res.err, message, what);
    t.equal(res.err.split('\n').length, 1, `${what}: one line`);
  }
  const unwritable = await cli('triage', SHIPPED_REGISTRY, '--demand-file', reportFile, '--accept-all', '--out', join(dir, 'no-folder', 'out.json'));
  t.equal(unwritable.code, 1);
  t.match(unwritable.err, /cannot write .*out\.json \(ENOENT\): nothing written/);
  const broken = join(dir, 'broken-registry.json');
  await writeFile(broken, shipped.toString('utf8').replace('"version": "1.0.0"', '"version": "one"'));
  const bad = await cli('triage', broken, '--demand-file', reportFile, '--accept-all', '--out', out);
  t.equal(bad.code, 1);
  t.match(bad.err, /broken-registry\.json fails check \(1 problem, first: version: .*\): run check and fix it first/);
  t.notOk(existsSync(out), 'nothing written');
  t.match((await cli('triage', SHIPPED_REGISTRY, '--accept-all')).err, /^usage: three-good-sources triage/);
});

t.test('triage --demand reads the report from a running server with the token file, as demand does', async (t) => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const tokenFile = join(dir, 'demand.token');
  await writeFile(tokenFile, `${TOKEN}\n`);
  const res = await cli('triage', SHIPPED_REGISTRY, '--demand', `http://127.0.0.1:${port}/`, '--token-file', tokenFile, '--json');
  t.equal(res.code, 0, res.err);
  t.ok((JSON.parse(res.out) as { suggestions: unknown[] }).suggestions.length >= 1);
  await writeFile(tokenFile, 'wrong-token-000000000000');
  const refused = await cli('triage', SHIPPED_REGISTRY, '--demand', `http://127.0.0.1:${port}/`, '--token-file', tokenFile, '--json');
  t.equal(refused.code, 1);
  t.match(refused.err, /refused the token \(401\)/);
});

// With CI=true nothing is skipped: .ci/run installs tmux, and a missing one fails the test.
t.test('one at a time needs --out and a terminal, and says so', async (t) => {
  const noOut = await cli('triage', SHIPPED_REGISTRY, '--demand-file', reportFile);
  t.equal(noOut.code, 1);
  t.equal(noOut.err, 'give --out <file> for the registry you accept into');
  const noTerminal = await cli('triage', SHIPPED_REGISTRY, '--demand-file', reportFile, '--out', join(dir, 'never.json'));
  t.equal(noTerminal.code, 1);
  t.equal(noTerminal.err, 'one at a time needs a terminal: use --accept-all --out <file> or --json');
});

const tmuxSkip = process.env.CI === 'true' || binaryOnPath('tmux') !== undefined ? false : 'needs tmux for a real terminal: install it (apt-get install tmux)';
t.test('triage in a real terminal: one suggestion at a time, accepted with "a", written at the end', { skip: tmuxSkip }, async (t) => {
  const out = join(dir, 'interactive.json');
  const session = `triage-${process.pid}`;
  const command = [process.execPath, join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'triage', SHIPPED_REGISTRY, '--demand-file', reportFile, '--out', out].map((a) => `'${a}'`).join(' ');
  execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '200', '-y', '300', command]);
  t.teardown(() => spawnSync('tmux', ['kill-session', '-t', session]));
  const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
  const prompt = '[a]ccept, [e]dit, [n]ot-about, [s]kip, [q]uit?';
  const prompts = () => screen().split(prompt).length - 1;
  await waitFor(() => prompts() === 1, 30_000);
  t.match(screen(), /linux-hardening: add the example question ".*ssh.*" \(asked by \d+ clients, 12 times\)/);
  t.match(screen(), /would answer \d+ declined questions?/);
  // Edit the text first: it is judged again, then accepted; q writes what was accepted.
  execFileSync('tmux', ['send-keys', '-t', session, 'e', 'Enter']);
  await waitFor(() => screen().includes('text:'), 30_000);
  execFileSync('tmux', ['send-keys', '-t', session, 'rotate ssh keys regularly', 'Enter']);
  await waitFor(() => prompts() === 2, 30_000);
  t.match(screen(), /add the example question "rotate ssh keys regularly"/, 'the edited text, judged again');
  execFileSync('tmux', ['send-keys', '-t', session, 'a', 'Enter']);
  await waitFor(() => existsSync(out) || prompts() === 3, 30_000);
  if (!existsSync(out)) spawnSync('tmux', ['send-keys', '-t', session, 'q', 'Enter']);
  await waitFor(() => existsSync(out), 30_000);
  const written = registryFromBytes(await readFile(out));
  if (!written.ok) throw new Error(written.problems.join());
  const patterns = written.registry.categories['linux-hardening']!.queryPatterns;
  t.ok(patterns.includes('rotate ssh keys regularly'), 'the accepted example question, as edited, is in the file');
});

t.test('triage shows a question a category answered in foreign words as a not-about entry to judge; --accept-all leaves it, unjudged (issue 32)', async (t) => {
  const foreign = 'best chain lube for my road bike';
  const withAnswered = {
    ...report,
    answered: [...report.answered, { slug: 'rust-learning', name: 'Rust Learning', answered: 9, queries: [{ text: foreign, clients: 9, asks: 9 }] }],
  };
  const file = join(dir, 'answered.json');
  await writeFile(file, JSON.stringify(withAnswered));
  const json = await cli('triage', SHIPPED_REGISTRY, '--demand-file', file, '--json');
  t.equal(json.code, 0, json.err);
  type Judged = { suggestion: { kind: string; slug: string; text: string; from?: string }; consequence?: { turnsAway: string[] }; skipped?: string };
  const review = (JSON.parse(json.out) as { suggestions: Judged[] }).suggestions.find((s) => s.suggestion.from === foreign);
  t.match(review, { suggestion: { kind: 'not-about', slug: 'rust-learning' }, skipped: 'needs-curator' }, 'offered for the curator to judge');
  t.ok(review?.consequence !== undefined, 'with --json, judged all the same');
  const all = await cli('triage', SHIPPED_REGISTRY, '--demand-file', file, '--accept-all', '--out', join(dir, 'answered-out.json'));
  t.equal(all.code, 0, all.err);
  t.match(all.out, new RegExp(`^rust-learning: add the not-about entry "\\w+" \\(it answered "${foreign}", asked by 9 clients, 9 times: is that its topic\\?\\)\\n {2}not taken: whether an answer was wrong is for the curator to judge$`, 'm'));
  t.notMatch(all.out, /would turn away/, '--accept-all does not judge what it never takes');
});
