import helmet from '@fastify/helmet';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../../src/catalog.js';
import type { FederationView } from '../../src/federation/federation.js';
import { BASE_URL_PLACEHOLDER } from '../../src/provenance/facts.js';
import { PAGE_ASSETS, renderCategory, renderHome, renderNotFound } from '../../src/page/render.js';
import { categoryNames } from '../../src/catalog.js';
import { categoryPageView, categoryView, homeView, notFoundView } from '../../src/page/view.js';
import { clientKey } from '../../src/clients/client-key.js';
import type { DemandSignal } from '../../src/demand/signal.js';
import { publicBaseUrl, type PublicUrlOptions } from '../support/public-url.js';

export interface PageRoutesOptions {
  readonly catalog: () => Catalog;
  readonly federation: FederationView;
  /** Where the page's examples say this server is: PUBLIC_URL, or the request's host as public-url.ts allows. */
  readonly publicUrl: PublicUrlOptions;
  /** Records page searches; `public`: DEMAND_PUBLIC, the page lists the most requested uncovered topics. */
  readonly demand?: { readonly signal: DemandSignal; readonly public: boolean; readonly minClients: number; readonly windowDays: number };
}

/**
 * Whether the reader asked this search: typed into this page's form or opened directly
 * (Sec-Fetch-Site same-origin or none), or sent by a client that is no browser (it sends no
 * Sec-Fetch-Site, and acts for itself). A browser says cross-site or same-site when another site's
 * page made the request (a hidden image, a frame, a link or a redirect): counting those would let
 * any site put its chosen phrase on the public list through its visitors (issue 31, finding 3).
 */
const askedByReader = (request: FastifyRequest): boolean => {
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
};

/**
 * What the page may load: its own style sheet and icon, nothing else; no script at all, and forms
 * only to this server. form-action, base-uri and frame-ancestors do not fall back to default-src.
 */
export const PAGE_CSP = {
  defaultSrc: ["'none'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
} as const;

/**
 * The page for people: GET / (and its search, GET /?q=), GET /c/<slug>, and the two files they
 * link to. HTTP only: the views are built from the live catalog by src/page and rendered there.
 * Registered without fastify-plugin, so helmet's headers (CSP, nosniff, referrer policy) apply to
 * these routes alone; the Origin/Host policy registered before it guards them as every route.
 */
export const pageRoutes: FastifyPluginAsync<PageRoutesOptions> = async (app, { catalog, federation, publicUrl, demand }) => {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: PAGE_CSP },
    referrerPolicy: { policy: 'no-referrer' },
    // Whether this server is reached over TLS is the proxy's business, not ours.
    strictTransportSecurity: false,
    // The same answer as frame-ancestors 'none', for browsers that read only this header.
    frameguard: { action: 'deny' },
  });

  // The address the reader used, so that the examples on the page work as shown; a Host that is
  // no host name or address (it goes into commands a reader copies) is not repeated.
  const baseUrl = (request: FastifyRequest) => publicBaseUrl(request, publicUrl) ?? BASE_URL_PLACEHOLDER;
  const html = (reply: FastifyReply, status: number, body: string) =>
    // The page is the live registry and names the Host it was asked under: never stored.
    reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);

  app.get<{ Querystring: { q?: string | string[] } }>('/', async (request, reply) => {
    const { q } = request.query;
    // ?q=a&q=b comes as a list: the form sends one, and the first is the one answered.
    const query = Array.isArray(q) ? q[0] : q;
    const current = catalog();
    // The public list is for the front page only: a search result page is about its result.
    const uncovered = demand?.public === true && demand.signal.recording && query === undefined
      ? await demand.signal.publicTopics(categoryNames(current))
      : undefined;
    const settings = demand === undefined
      ? undefined
      : { recording: demand.signal.recording, minClients: demand.minClients, windowDays: demand.windowDays, uncovered };
    const view = homeView(current, { baseUrl: baseUrl(request), query, asker: clientKey(request.ip), federation, demand: settings });
    if (view.search !== undefined && view.search.kind !== 'invalid' && askedByReader(request)) demand?.signal.record(view.search.asked, request.ip);
    return html(reply, view.search?.kind === 'invalid' ? 400 : 200, renderHome(view));
  });

  app.get<{ Params: { slug: string } }>('/c/:slug', async (request, reply) => {
    const current = catalog();
    const view = categoryPageView(current, request.params.slug, baseUrl(request));
    return view === undefined
      ? html(reply, 404, renderNotFound(notFoundView(current, request.url.split('?')[0]!, baseUrl(request))))
      : html(reply, 200, renderCategory(view));
  });

  // Anything else under /c/ is a page address too: a trailing slash leads to the category, the
  // rest is the HTML not-found page rather than the JSON one of the API routes.
  app.get<{ Params: { '*': string } }>('/c/*', async (request, reply) => {
    const current = catalog();
    const slug = /^([^/]+)\/$/.exec(request.params['*'])?.[1];
    const category = slug === undefined ? undefined : categoryView(current, slug);
    if (category !== undefined) return reply.redirect(category.path, 308);
    return html(reply, 404, renderNotFound(notFoundView(current, request.url.split('?')[0]!, baseUrl(request))));
  });

  // no-cache: a few hundred bytes fetched again rather than an old style sheet after an upgrade.
  for (const [path, asset] of PAGE_ASSETS) {
    app.get(path, async (_request, reply) => reply.header('cache-control', 'no-cache').type(asset.contentType).send(asset.body));
  }
};
