import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { prepareCatalog, type Catalog } from '../../../src/catalog.js';
import { renderCategory, renderHome, renderNotFound } from '../../../src/page/render.js';
import { categoryPageView, homeView, notFoundView } from '../../../src/page/view.js';
import type { Category, Registry } from '../../../src/registry/types.js';
import { SHIPPED_REGISTRY, build, otherPublicKey, serverSigning, testConfig } from '../../helpers/build.js';

const BASE = 'http://127.0.0.1:3000';
const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), testConfig().matchThreshold);

/** Markup in a field, labelled so that each field's own text can be found again, escaped. */
const script = (field: string) => `<script>alert('${field}')</script>`;
const img = (field: string) => `"><img src=x onerror=alert('${field}')>`;
const hostile = (field: string) => `${script(field)}${img(field)} it's "${field}"`;
/** What Eta makes of it: &, <, >, " and ' escaped. */
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Every check a page must pass whatever the registry holds. */
function inert (t: Test, html: string, label: string) {
  t.notMatch(html, /<script/i, `${label}: no <script element`);
  // A tag's attribute names, once its quoted values (where escaped text may say anything) are gone.
  const tags = (html.match(/<[a-z][^>]*>/gi) ?? []).map((tag) => tag.replace(/"[^"]*"|'[^']*'/g, '""'));
  t.same(tags.filter((tag) => /\son[a-z]+\s*=/i.test(tag)), [], `${label}: no tag has an event handler attribute`);
  t.notMatch(html, /<img/i, `${label}: no <img element`);
  t.notMatch(html, /href\s*=\s*["']?\s*(javascript|data|vbscript):/i, `${label}: no javascript:, data: or vbscript: link`);
}

const HOSTILE_SLUG = 'rust-learning';

/**
 * The shipped catalog with every text field the page shows replaced by markup, and URLs the
 * registry loader would refuse (it takes https only): what a template must survive even so.
 */
function forgedCatalog (): Catalog {
  const registry = catalog.registry;
  const categories: Record<string, Category> = {};
  for (const [slug, category] of Object.entries(registry.categories)) {
    categories[slug] =
      slug !== HOSTILE_SLUG
        ? category
        : {
            ...category,
            name: hostile('category name'),
            description: hostile('category description'),
            tags: [hostile('tag')],
            notAbout: [hostile('not about')],
            sources: category.sources.map((s) => ({
              ...s,
              name: hostile(`source name ${s.rank}`),
              why: hostile(`source why ${s.rank}`),
              url: s.rank === 1 ? 'javascript:alert(1)' : s.rank === 2 ? 'data:text/html,<script>alert(2)</script>' : 'vbscript:msgbox(3)',
            })),
          };
  }
  const forged: Registry = {
    ...registry,
    curator: { ...registry.curator, name: hostile('curator name') },
    endorsements: [{ name: hostile('endorsement name'), url: 'javascript:alert(1)', pubkey: otherPublicKey(), since: '2026-01-01' }],
    categories,
  };
  return { ...catalog, registry: forged };
}

t.test('markup in every text field of a catalog renders as text, and non-web URLs are never links', async (t) => {
  const forged = forgedCatalog();
  const home = renderHome(homeView(forged, { baseUrl: BASE }));
  const search = renderHome(homeView(forged, { baseUrl: BASE, query: 'learn rust programming' }));
  const page = renderCategory(categoryPageView(forged, HOSTILE_SLUG, BASE)!);
  const pages = { home, search, 'category page': page };
  for (const [label, html] of Object.entries(pages)) inert(t, html, label);

  const shown = (html: string, field: string, label: string) => t.ok(html.includes(escaped(hostile(field))), `${label}: the ${field} is shown, escaped`);
  for (const field of ['category name', 'category description', 'tag', 'source name 1', 'source why 1', 'source name 2', 'source why 3', 'curator name']) {
    shown(home, field, 'home');
    shown(search, field, 'search');
    shown(page, field, 'category page');
  }
  shown(page, 'not about', 'category page');
  shown(home, 'endorsement name', 'home');
  t.ok(home.includes('&lt;script&gt;alert(&#39;category name&#39;)&lt;/script&gt;'), 'the escaping is the one a reader sees as the literal text');
  t.ok(home.includes('javascript:alert(1): not a web address, not linked'), 'a javascript: source URL is shown as text and said not to be linked');
  t.ok(page.includes('data:text/html,&lt;script&gt;alert(2)&lt;/script&gt;: not a web address, not linked'), 'a data: URL too, escaped');
  t.ok(home.includes('Registry: javascript:alert(1);'), "an endorsement's javascript: URL is text, not a link");
  t.match(search, '<article class="category" id="result-rust-learning"', 'the forged category is the search result');
  t.match(search, '<article class="category" id="rust-learning"', 'and in the list');
});

t.test('markup in the query, the Host and the path renders as text', async (t) => {
  const query = hostile('query');
  const forged = forgedCatalog();
  const cases = {
    'no-match': renderHome(homeView(catalog, { baseUrl: BASE, query })),
    match: renderHome(homeView(catalog, { baseUrl: BASE, query: `learn rust programming ${script('q')}` })),
    invalid: renderHome(homeView(catalog, { baseUrl: BASE, query: `${query}${'x'.repeat(1000)}` })),
    host: renderHome(homeView(forged, { baseUrl: `http://${img('host')}` })),
    'not found': renderNotFound(notFoundView(forged, `/c/${hostile('path')}`, BASE)),
  };
  for (const [label, html] of Object.entries(cases)) inert(t, html, label);
  t.ok(cases['no-match'].includes(`value="${escaped(query)}"`), 'the search box keeps the query, escaped inside its attribute');
  t.ok(cases['no-match'].includes(`<title>${escaped(query.slice(0, 60))} · Three Good Sources</title>`), 'the title too');
  t.ok(cases['no-match'].includes(`Sources for “${escaped(query)}”`), 'the heading too');
  t.ok(cases.host.includes(escaped(`http://${img('host')}/mcp`)), 'a hostile Host shows as text in the MCP URL');
  t.ok(cases['not found'].includes(escaped(`/c/${hostile('path')}`)), 'the path shows as text');
});

t.test('a registry file with markup in its text, served by the real app, renders escaped', async (t) => {
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8')) as { curator: { name: string }; categories: Record<string, { name: string; description: string; tags: string[]; notAbout?: string[]; sources: { name: string; why: string }[] }> };
  data.curator.name = hostile('curator name');
  const rust = data.categories['rust-learning']!;
  rust.name = hostile('category name');
  rust.description = hostile('category description');
  rust.tags = [...rust.tags, hostile('tag')];
  rust.notAbout = [hostile('not about')];
  rust.sources[0]!.name = hostile('source name');
  rust.sources[1]!.why = hostile('source why');
  const file = join(await mkdtemp(join(tmpdir(), '3gs-render-')), 'registry.json');
  await writeFile(file, JSON.stringify(data));
  const app = await build(t, { registryPath: file });

  const home = await app.inject({ url: '/' });
  const search = await app.inject({ url: '/?q=learn+rust+programming' });
  const page = await app.inject({ url: '/c/rust-learning' });
  for (const [label, res] of Object.entries({ home, search, page })) {
    t.equal(res.statusCode, 200, label);
    inert(t, res.body, label);
    for (const field of ['curator name', 'category name', 'category description', 'tag', 'source name', 'source why']) {
      t.ok(res.body.includes(escaped(hostile(field))), `${label}: the ${field} is shown, escaped`);
    }
  }
  t.ok(page.body.includes(escaped(hostile('not about'))), 'category page: what it is not about, escaped');
  t.match(search.body, /<strong>&lt;script&gt;alert\(&#39;category name&#39;\)&lt;\/script&gt;/, 'the search result names the category, as text');
});
