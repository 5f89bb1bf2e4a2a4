import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { checkLinks } from '../../../src/cli/links.js';
import type { Registry } from '../../../src/registry/types.js';
import { SHIPPED_REGISTRY } from '../../helpers/build.js';
import { fakeServer } from '../../helpers/fake-server.js';
import { cli } from '../../helpers/signed.js';

const dir = await mkdtemp(join(tmpdir(), '3gs-links-'));

/** An https server on loopback with a self-signed certificate (openssl makes it): one no client trusts. */
async function untrustedHttps (t: { teardown(fn: () => unknown): void }): Promise<string> {
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost']);
  const server = createHttpsServer({ key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function registryOf (urls: string[][]): Registry {
  const base = JSON.parse(JSON.stringify(REGISTRY)) as Registry & { categories: Record<string, { sources: { url: string }[] }> };
  const slugs = Object.keys(base.categories).slice(0, urls.length);
  return {
    ...base,
    categories: Object.fromEntries(slugs.map((slug, i) => [
      slug,
      { ...base.categories[slug]!, sources: base.categories[slug]!.sources.map((s, r) => ({ ...s, url: urls[i]![r]! })) },
    ])),
  } as unknown as Registry;
}
const REGISTRY = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')) as Registry;

t.test('check --links names each dead link, move to another site, TLS failure and unreachable host, and passes the rest', async (t) => {
  const site = await fakeServer(t, (req, res) => {
    const moves: Record<string, string> = { '/old': '/ok', '/moved': 'https://elsewhere.example/new', '/loop': '/loop' };
    if (req.url! in moves) {
      res.statusCode = 301;
      res.setHeader('location', moves[req.url!]!);
    } else if (req.url !== '/ok') res.statusCode = req.url === '/broken' ? 500 : 404;
    res.end();
  });
  const slow = await fakeServer(t, () => {});
  const tls = await untrustedHttps(t);
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/`;
  await new Promise((resolve) => probe.close(resolve));
  const registry = registryOf([
    [`${site}/ok`, `${site}/gone`, `${site}/moved`],
    [`${site}/old`, tls, `${site}/broken`],
    [`${site}/loop`, `${slow}/`, closed],
  ]);
  const { problems, offline } = await checkLinks(registry, { timeoutMs: 500, maxRedirects: 3 });
  t.equal(offline, undefined, 'some links answered: the network works');
  const [first, second, third] = Object.keys(registry.categories);
  t.same(problems, [
    `categories.${first}.source rank 2: ${site}/gone: dead (HTTP 404)`,
    `categories.${first}.source rank 3: ${site}/moved: redirects to another site: https://elsewhere.example/new`,
    `categories.${second}.source rank 2: ${tls}: TLS failure (DEPTH_ZERO_SELF_SIGNED_CERT)`,
    `categories.${second}.source rank 3: ${site}/broken: dead (HTTP 500)`,
    `categories.${third}.source rank 1: ${site}/loop: more than 3 redirects`,
    `categories.${third}.source rank 2: ${slow}/: no answer within 0.5 s`,
    `categories.${third}.source rank 3: ${closed}: unreachable (ECONNREFUSED)`,
  ]);

  // Through the command: link problems are warnings, and --strict makes them fail.
  const file = join(dir, 'links.json');
  await writeFile(file, JSON.stringify(registryOf([[tls, `${tls}a`, `${tls}b`]])));
  const res = await cli('check', file, '--links');
  t.equal(res.code, 0);
  t.match(res.out, new RegExp(`^warning link categories\\.${first}\\.source rank 1: ${tls.replace(/[.]/g, '\\.')}: TLS failure`, 'm'));
  t.equal((await cli('check', file, '--links', '--strict')).code, 1);
});

t.test('check --links with nothing reachable says so in one line instead of reporting every link, and --strict fails (issue 24, item 10)', async (t) => {
  // Closed ports on loopback: as offline as a machine gets, without touching its network.
  const closed: string[] = [];
  for (let i = 0; i < 3; i++) {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closed.push(`https://127.0.0.1:${(probe.address() as AddressInfo).port}/${i}`);
    await new Promise((resolve) => probe.close(resolve));
  }
  const report = await checkLinks(registryOf([closed]), { timeoutMs: 500 });
  t.same(report, { problems: [], offline: 'none of the 3 links could be reached (unreachable (ECONNREFUSED)): this machine seems to have no network, so the links were not checked' });
  const file = join(dir, 'offline.json');
  await writeFile(file, JSON.stringify(registryOf([closed])));
  const res = await cli('check', file, '--links');
  t.equal(res.code, 0);
  t.match(res.out, /^warning links: none of the 3 links could be reached .*: this machine seems to have no network, so the links were not checked$/m);
  t.notMatch(res.out, /^warning link categories/m, 'no link reported one by one');
  t.match(res.out, /^OK .*offline\.json: 1 category, 1 warning \(links not checked: nothing could be reached\)$/m);
  const strict = await cli('check', file, '--links', '--strict');
  t.equal(strict.code, 1, '--strict fails');
  t.match(strict.out, /^FAIL .*\(links not checked: nothing could be reached\)$/m);
});
