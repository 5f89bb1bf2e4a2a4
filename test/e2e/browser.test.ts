/**
 * The page for people in a real browser: the built server (dist/, as npm start runs it) in its
 * own process, driven by a headless Chromium through playwright-core, checked by axe-core.
 * Navigation, console and request checks run with the page's CSP enforced; only the axe runs
 * bypass it, to inject axe's script.
 */
import axe from 'axe-core';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import t from 'tap';
import { ROOT, SHIPPED_REGISTRY } from '../helpers/build.js';
import { browserSkip, launchBrowser } from '../helpers/browser.js';
import { SERVER_ENTRY, start, until, type Started } from '../helpers/process.js';

const skip = browserSkip();
// A browser start, ten axe runs and six full-page screenshots: more than the default 60 s on a busy machine.
t.setTimeout(180_000);
const SEED = '07'.repeat(32);
const SCREENSHOTS = join(ROOT, 'test-artifacts', 'screenshots');

interface ShippedRegistry {
  categories: Record<string, { name: string; description: string; sources: { rank: number; name: string; url: string; why: string }[] }>;
}
const registry = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')) as ShippedRegistry;
const slugs = Object.keys(registry.categories);

/** A registry whose text holds a script, for the server that shows it must stay inert. */
const PWN = '<script>window.__pwned=1</script>';
async function hostileRegistry (): Promise<string> {
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')) as ShippedRegistry;
  const rust = data.categories['rust-learning']!;
  rust.description = `${rust.description} ${PWN}`;
  rust.sources[0]!.why = `${PWN} ${rust.sources[0]!.why}`;
  const file = join(await mkdtemp(join(tmpdir(), '3gs-browser-')), 'registry.json');
  await writeFile(file, JSON.stringify(data, null, 2));
  return file;
}

/** A built server in its own process on a free loopback port, stopped when the file ends. */
async function serve (env: Record<string, string> = {}): Promise<string> {
  const server: Started = start({ PORT: '0', CURATOR_SECRET_KEY: SEED, LOG_LEVEL: 'info', ...env });
  t.teardown(async () => {
    server.kill('SIGTERM');
    await server.code;
  });
  const address = await Promise.race([server.address, server.code.then(() => undefined)]);
  if (address === undefined) throw new Error(`the server did not start: ${server.stderr()}`);
  return address;
}

let browser: Browser;
let base = '';
let hostileBase = '';
if (skip === false) {
  if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run npm run build first`);
  [browser, base, hostileBase] = await Promise.all([launchBrowser(t), serve(), hostileRegistry().then((file) => serve({ REGISTRY_PATH: file }))]);
}

/** What a page reports that a reader never should see: console errors and warnings, script errors, requests elsewhere. */
interface Watched {
  readonly console: string[];
  readonly errors: string[];
  readonly foreign: string[];
  readonly requests: string[];
}

function watch (page: Page, origin: string): Watched {
  const watched: Watched = { console: [], errors: [], foreign: [], requests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') watched.console.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('request', (request) => {
    watched.requests.push(request.url());
    if (new URL(request.url()).origin !== origin) watched.foreign.push(request.url());
  });
  return watched;
}

async function context (t: { teardown(fn: () => unknown): void }, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const created = await browser.newContext(options);
  t.teardown(() => created.close());
  return created;
}

const QUERY_RUST = '/?q=learn+rust+programming';
const QUERY_NONSENSE = '/?q=xyzzy+plugh+quux';
const NOT_FOUND = '/c/no-such-category';
/** Every kind of page the server shows. */
const PAGES = ['/', QUERY_RUST, QUERY_NONSENSE, '/c/rust-learning', NOT_FOUND];

t.test('the home page shows every category of the registry, each with its three source links', { skip }, async (t) => {
  const page = await (await context(t)).newPage();
  const watched = watch(page, base);
  const response = await page.goto(`${base}/`);
  t.equal(response?.status(), 200);
  t.equal(await page.title(), 'Three Good Sources');
  const articles = page.locator('main article.category');
  t.equal(await articles.count(), slugs.length, `${slugs.length} categories, as in the registry`);
  for (const [i, slug] of slugs.entries()) {
    const article = articles.nth(i);
    t.equal(await article.getAttribute('id'), slug, `${slug}, in the registry's order`);
    t.equal(await article.locator('h3 a').textContent(), registry.categories[slug]!.name);
    const links = article.locator('ol.sources a');
    t.equal(await links.count(), 3, `${slug}: three source links`);
    const hrefs = await links.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    t.same(hrefs, [...registry.categories[slug]!.sources].sort((a, b) => a.rank - b.rank).map((s) => new URL(s.url).href), `${slug}: best first`);
  }
  t.equal(await page.evaluate(() => getComputedStyle(document.body).maxWidth), '960px', 'the style sheet applies under the CSP');
  t.same(watched.console, [], 'no console error or warning');
  t.same(watched.errors, []);
  t.same(watched.foreign, [], 'no request left the server');
});

for (const javaScriptEnabled of [true, false]) {
  t.test(`searching by typing and pressing Enter or clicking Search, and following a category link (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, { skip }, async (t) => {
    const page = await (await context(t, { javaScriptEnabled })).newPage();
    const watched = watch(page, base);
    await page.goto(`${base}/`);

    await page.getByLabel('Find three good sources on a topic').fill('learn rust programming');
    await Promise.all([page.waitForURL(`${base}${QUERY_RUST}`), page.keyboard.press('Enter')]);
    t.equal(await page.locator('#result-heading').textContent(), 'Sources for “learn rust programming”');
    t.equal(await page.locator('.result article.category').getAttribute('id'), 'result-rust-learning', 'Enter: the rust-learning category');
    t.equal(await page.locator('.result ol.sources a').count(), 3);
    t.equal(await page.locator('#q').inputValue(), 'learn rust programming', 'the search box keeps the query');

    await page.locator('#q').fill('xyzzy plugh quux');
    await Promise.all([page.waitForURL(`${base}${QUERY_NONSENSE}`), page.getByRole('button', { name: 'Search' }).click()]);
    const answer = (await page.locator('.result .no-match').textContent()) ?? '';
    t.match(answer, /^Nothing here matches “xyzzy plugh quux” well enough to show three sources for it\./, 'Search: the honest no-match, for people');
    t.equal(await page.locator('.result article.category').count(), 0, 'no category is offered as the answer');

    await Promise.all([page.waitForURL(`${base}/c/bitcoin-node-setup`), page.locator('#h-bitcoin-node-setup a').click()]);
    t.equal(await page.locator('h1').textContent(), 'Bitcoin Node Setup', 'the category link leads to its page');
    t.equal(await page.locator('main ol.sources a').count(), 3);
    await Promise.all([page.waitForURL(`${base}/`), page.getByRole('link', { name: 'All categories' }).click()]);
    t.equal(await page.locator('main article.category').count(), slugs.length, 'and back to every category');

    t.same(watched.console, [], 'no console error or warning');
    t.same(watched.errors, []);
    t.same(watched.foreign, [], 'no request left the server');
  });
}

t.test("a search another site's page makes the browser send is not counted; the reader's own search is (issue 31, finding 3)", { skip }, async (t) => {
  const token = 'a-browser-test-demand-token-0123456789';
  const counted = await serve({ DEMAND_TOKEN: token });
  const requests = async () => ((await (await fetch(`${counted}/demand`, { headers: { authorization: `Bearer ${token}` } })).json()) as { totals: { requests: number } }).totals.requests;
  // Another site, on another origin (localhost, not 127.0.0.1): a hidden image and a frame of a search.
  const search = `${counted}/?q=sourdough+bread+starter`;
  const site = createServer((_request, response) => response.setHeader('content-type', 'text/html').end(`<!doctype html><title>elsewhere</title><img src="${search}" alt=""><iframe src="${search}"></iframe>`));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  t.teardown(() => site.close());
  const page = await (await context(t)).newPage();
  const loads = ['image', 'iframe'].map(() => page.waitForResponse((r) => r.url() === search));
  await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
  await Promise.all(loads);
  t.equal(await requests(), 0, "the other site's image and frame were sent, and counted nowhere");
  await page.goto(`${counted}/`);
  await page.getByLabel('Find three good sources on a topic').fill('sourdough bread starter');
  await Promise.all([page.waitForURL(search), page.keyboard.press('Enter')]);
  t.equal(await requests(), 1, "the reader's own search from the page's form is counted");
});

t.test('no page logs an error or a warning (CSP violations included), and no request leaves the server', { skip }, async (t) => {
  const ctx = await context(t);
  const longQuery = `/?q=${'a'.repeat(1001)}`;
  const expected: Record<string, { status: number; console: string[] }> = {};
  for (const url of [...PAGES, ...slugs.map((s) => `/c/${s}`), '/?q=', longQuery]) {
    // The browser itself logs a page answered with an error status; the page adds nothing to it.
    const status = url === NOT_FOUND ? 404 : url === longQuery ? 400 : 200;
    expected[url] = { status, console: status === 200 ? [] : [`error: Failed to load resource: the server responded with a status of ${status} (${status === 404 ? 'Not Found' : 'Bad Request'})`] };
  }
  for (const [url, want] of Object.entries(expected)) {
    const page = await ctx.newPage();
    const watched = watch(page, base);
    const response = await page.goto(`${base}${url}`);
    await page.waitForLoadState('load');
    const label = url.slice(0, 40);
    t.equal(response?.status(), want.status, `${label}: ${want.status}`);
    t.same(watched.console, want.console, `${label}: nothing logged but the status`);
    t.same(watched.errors, [], `${label}: no script error`);
    t.same(watched.foreign, [], `${label}: every request went to ${base}`);
    t.ok(watched.requests.includes(`${base}/assets/page.css`), `${label}: the style sheet was loaded`);
    const duplicates = await page.evaluate(() => {
      const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
      return ids.filter((id, i) => ids.indexOf(id) !== i);
    });
    t.same(duplicates, [], `${label}: every id is unique`);
    await page.close();
  }
});

for (const colorScheme of ['light', 'dark'] as const) {
  t.test(`axe-core finds no accessibility violation on any page (${colorScheme} color scheme)`, { skip }, async (t) => {
    // Only here is the CSP bypassed: axe is a script the page's CSP rightly refuses.
    const page = await (await context(t, { bypassCSP: true, colorScheme })).newPage();
    for (const url of PAGES) {
      await page.goto(`${base}${url}`);
      await page.addScriptTag({ content: axe.source });
      const violations = await page.evaluate(async () => {
        const result = await window.axe.run(document, { resultTypes: ['violations'] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`) }));
      });
      t.same(violations, [], `${url}: no violation`);
    }
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    t.equal(background, colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(18, 22, 28)', `the ${colorScheme} colors were the ones checked`);
  });
}

for (const width of [360, 1440]) {
  t.test(`at ${width} px wide no page scrolls sideways`, { skip }, async (t) => {
    const page = await (await context(t, { viewport: { width, height: 800 } })).newPage();
    const unbroken = `/?q=${'https://example.org/'.repeat(12)}`;
    // The longest slug the route takes (Fastify's maxParamLength, 100), on the not-found page.
    const longPath = `/c/${'x'.repeat(100)}`;
    for (const url of [...PAGES, unbroken, `/?q=${'a'.repeat(1001)}`, longPath]) {
      const response = await page.goto(`${base}${url}`);
      if (url === longPath) t.equal(response?.status(), 404, 'the long path is answered by the not-found page');
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      t.ok(scrollWidth <= width, `${url.slice(0, 40)}: ${scrollWidth} px <= ${width} px`);
    }
  });
}

t.test('keyboard focus is visible: the skip link first, then the search box with an outline', { skip }, async (t) => {
  const page = await (await context(t)).newPage();
  await page.goto(`${base}/`);
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the content', 'the first Tab reaches the skip link');
  const skipBox = await page.locator('a.skip').boundingBox();
  t.ok(skipBox !== null && skipBox.x >= 0, 'which comes into view when focused');
  let focused: string | undefined;
  for (let i = 0; i < 5 && focused !== 'q'; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() => document.activeElement?.id);
  }
  t.equal(focused, 'q', 'Tab reaches the search box');
  const outline = await page.evaluate(() => {
    const style = getComputedStyle(document.activeElement!);
    return { style: style.outlineStyle, width: style.outlineWidth };
  });
  t.not(outline.style, 'none', `the search box shows an outline (${outline.style})`);
  t.not(outline.width, '0px', `of some width (${outline.width})`);
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Search', 'then the Search button');
  t.not(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'none', 'with an outline too');
});

t.test('screenshots of the home page at 360 and 1440 px, light and dark, and of a search result', { skip }, async (t) => {
  await mkdir(SCREENSHOTS, { recursive: true });
  const shots: [string, BrowserContextOptions, string][] = [];
  for (const width of [360, 1440]) {
    for (const colorScheme of ['light', 'dark'] as const) shots.push([`home-${width}-${colorScheme}.png`, { viewport: { width, height: 900 }, colorScheme }, '/']);
  }
  shots.push(['search-rust-1440-light.png', { viewport: { width: 1440, height: 900 }, colorScheme: 'light' }, QUERY_RUST]);
  shots.push(['search-rust-360-dark.png', { viewport: { width: 360, height: 900 }, colorScheme: 'dark' }, QUERY_RUST]);
  for (const [name, options, url] of shots) {
    const page = await (await context(t, options)).newPage();
    await page.goto(`${base}${url}`);
    const path = join(SCREENSHOTS, name);
    await page.screenshot({ path, fullPage: true });
    t.ok(existsSync(path), name);
    t.comment(`screenshot: ${path}`);
  }
});

t.test('a registry whose text holds a <script> renders inert in the browser, the text shown as written', { skip }, async (t) => {
  const page = await (await context(t)).newPage();
  const watched = watch(page, hostileBase);
  for (const url of ['/', QUERY_RUST, '/c/rust-learning']) {
    const response = await page.goto(`${hostileBase}${url}`);
    t.equal(response?.status(), 200, url);
    t.equal(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned), undefined, `${url}: the script never ran`);
    t.equal(await page.evaluate(() => document.scripts.length), 0, `${url}: the page has no script element`);
    const why = page.locator('#rust-learning .why, main > article .why').first();
    t.match(await why.textContent(), new RegExp(`^${PWN.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} The official book`), `${url}: the source's why shows the markup as text`);
    t.ok(await why.isVisible(), `${url}: visibly`);
    const description = url === '/c/rust-learning' ? page.locator('.lede').last() : page.locator('#rust-learning > p').first();
    t.match(await description.textContent(), `${PWN}`, `${url}: so does the category description`);
    if (url === QUERY_RUST) {
      const answered = page.locator('#result-rust-learning .why').first();
      t.match(await answered.textContent(), PWN, 'the search answer shows the markup as text too');
      t.ok(await answered.isVisible());
    }
  }
  t.same(watched.console, [], 'no CSP violation or other error was logged: nothing tried to run');
  t.same(watched.errors, []);
  t.same(watched.foreign, []);
});

declare global {
  interface Window {
    axe: typeof axe;
  }
}

t.test('a SIGHUP reload changes the page at once: the browser shows the new registry on its next load', { skip }, async (t) => {
  const file = join(await mkdtemp(join(tmpdir(), '3gs-reload-')), 'registry.json');
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')) as ShippedRegistry & { version: string };
  await writeFile(file, JSON.stringify(data, null, 2));
  const server: Started = start({ PORT: '0', CURATOR_SECRET_KEY: SEED, REGISTRY_PATH: file });
  t.teardown(async () => {
    server.kill('SIGTERM');
    await server.code;
  });
  const address = await server.address;
  const page = await (await context(t)).newPage();
  await page.goto(`${address}/c/rust-learning`);
  t.equal(await page.locator('h1').textContent(), 'Rust Learning');

  data.version = '1.0.1';
  data.categories['rust-learning']!.name = 'Rust, Learned Well';
  await writeFile(file, JSON.stringify(data, null, 2));
  server.kill('SIGHUP');
  await until(() => server.logs().some((line) => line.msg === 'registry reloaded'));
  await page.reload();
  t.equal(await page.locator('h1').textContent(), 'Rust, Learned Well', 'the category page');
  await page.goto(`${address}/`);
  t.equal(await page.locator('#h-rust-learning a').textContent(), 'Rust, Learned Well', 'the home page');
  t.match(await page.locator('footer').textContent(), /Registry 1\.0\.1 /, 'the version in the footer');
});
