/**
 * What the page for people shows, built from the catalog being served with the same typed
 * services the tools answer from: the search from find-sources (get_sources), the provenance
 * panel from provenanceFacts (get_provenance), the peers panel from endorsementFacts
 * (get_endorsements). The page therefore says what an agent is told, and changes when a reload
 * swaps the catalog. Templates (views/) only lay these values out; they escape every one.
 */
import type { Catalog } from '../catalog.js';
import { NO_FEDERATION, type FederationView } from '../federation/federation.js';
import { endorsementFacts } from '../federation/endorsement-facts.js';
import { BASE_URL_PLACEHOLDER, provenanceFacts, SIGNED_BY, shellQuote } from '../provenance/facts.js';
import type { Asked } from '../demand/asked.js';
import { candidateExample, findSources, lastChanged, MAX_QUERY_LENGTH } from '../sources/find-sources.js';
import type { SigningMode } from '../provenance/signature.js';
import type { SourceType } from '../registry/types.js';

export interface SourceView {
  readonly rank: number;
  readonly name: string;
  readonly url: string;
  /** The URL as a link target only when it is http(s): anything else is shown, never followed. */
  readonly href: string | undefined;
  readonly type: SourceType;
  readonly why: string;
}

export interface CategoryView {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly path: string;
  readonly tags: readonly string[];
  readonly notAbout: readonly string[];
  readonly lastChanged: string;
  readonly sources: readonly SourceView[];
}

export type SearchView =
  | { readonly kind: 'match'; readonly query: string; readonly category: CategoryView; readonly score: string; readonly asked: Asked }
  | {
    readonly kind: 'no-match';
    readonly query: string;
    /** A sentence for a person: what happened and what to try (issue 33, item 5). */
    readonly message: string;
    /** What get_sources tells an agent for the same query, shown on request. */
    readonly agentText: string;
    /** What the query amounted to, for the demand signal (the page route records it). */
    readonly asked: Asked;
    /** The candidate categories the message names, closest first (at most three; none when it names none). */
    readonly named: readonly CategoryView[];
  }
  | { readonly kind: 'invalid'; readonly query: string; readonly message: string };

export interface ProvenanceView {
  readonly curator: string;
  readonly publicKey: string;
  readonly version: string;
  readonly updated: string;
  readonly sha256: string;
  readonly signature: string;
  readonly mode: SigningMode;
  readonly signedBy: string;
  readonly history: string;
  /** get_provenance's commands, with this server's address filled in, shell-quoted. */
  readonly verifyCli: readonly string[];
  readonly verifyOpenssl: readonly string[];
  readonly expectedOutput: string;
}

export interface PeerRow {
  readonly name: string;
  readonly url: string;
  readonly href: string | undefined;
  readonly pubkey: string;
  readonly since: string;
  readonly state: 'fresh' | 'stale' | 'unavailable';
  readonly detail: string;
}

export interface HomeView {
  readonly title: string;
  readonly mcpUrl: string;
  readonly clientConfig: string;
  readonly curl: string;
  readonly categories: readonly CategoryView[];
  readonly provenance: ProvenanceView;
  readonly peers: readonly PeerRow[];
  readonly search: SearchView | undefined;
  readonly maxQueryLength: number;
  readonly demand: DemandView;
}

/** What the page says of the demand signal: what is kept, in one sentence, and (when public) the topics nobody here covers. */
export interface DemandView {
  readonly kept: string;
  /** Undefined unless DEMAND_PUBLIC=true. */
  readonly uncovered: readonly string[] | undefined;
}

/** What a page for one category shows: the category and who vouches for it. */
export interface CategoryPageView {
  readonly title: string;
  readonly category: CategoryView;
  readonly provenance: ProvenanceView;
  readonly maxQueryLength: number;
}

/** A page for an address that names nothing, such as a category that is not in the registry. */
export interface NotFoundView {
  readonly title: string;
  readonly path: string;
  readonly provenance: ProvenanceView;
  readonly maxQueryLength: number;
}

/** Only http and https URLs become links: a `javascript:` or `data:` URL stays inert text. */
export function safeHref (url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const { protocol } = new URL(url);
  return protocol === 'https:' || protocol === 'http:' ? url : undefined;
}

/** The path of a category's own page; slugs are lowercase words and hyphens, encoded all the same. */
export function categoryPath (slug: string): string {
  return `/c/${encodeURIComponent(slug)}`;
}

export function categoryView (catalog: Catalog, slug: string): CategoryView | undefined {
  const category = Object.hasOwn(catalog.registry.categories, slug) ? catalog.registry.categories[slug] : undefined;
  if (category === undefined) return undefined;
  return {
    slug,
    name: category.name,
    description: category.description,
    path: categoryPath(slug),
    tags: category.tags,
    notAbout: category.notAbout ?? [],
    lastChanged: lastChanged(catalog, slug).text,
    sources: category.sources.map(({ rank, name, url, type, why }) => ({ rank, name, url, href: safeHref(url), type, why })),
  };
}

/**
 * The search form's answer: what get_sources finds for the same query, through the same service
 * (src/sources/find-sources.ts), so the page finds what an agent finds. A match shows the
 * category; a decline says so in a sentence for people, links the candidates the agent's message
 * names (at most five), and keeps that message for whoever wants to see it.
 */
/**
 * A decline told to a person rather than an agent: no slugs, scores or tool calls, one sentence
 * and what to try; the categories it could mean are linked after it.
 */
function forPeople (catalog: Catalog, query: string, found: Extract<ReturnType<typeof findSources>, { kind: 'decline' }>): string {
  const asked = `“${query.trim().slice(0, 80)}”`;
  if (query.trim() === '') return 'Type a few words about a topic, for example “learn rust programming”.';
  if (found.reason === 'empty-query') return `${asked} has no words to search for. Describe the topic in a few words, for example “learn rust programming”.`;
  if (found.reason === 'too-long') return 'The question is too long once its characters are spelled out. Ask about one topic in a sentence or two.';
  const example = candidateExample(catalog, found.candidates);
  if (found.reason === 'too-vague') return `${asked} is a single word that many topics touch. Add a few words about what you need${example === undefined ? '' : `, for example “${example}”`}.`;
  return `Nothing here matches ${asked} well enough to show three sources for it.${found.candidates.length === 0 ? ' Try the topic\'s main words, or browse the categories below.' : ''}`;
}

export function searchView (catalog: Catalog, query: string, asker?: string): SearchView {
  // The tool's one argument check a form can fail: its input schema's maxLength.
  if (query.length > MAX_QUERY_LENGTH) {
    return { kind: 'invalid', query, message: `The query is longer than ${MAX_QUERY_LENGTH} characters. Ask about one topic in a sentence or two.` };
  }
  const found = findSources(catalog, query, undefined, asker);
  if (found.kind === 'decline') {
    const named = found.candidates.flatMap(({ slug }) => {
      const view = categoryView(catalog, slug);
      return view === undefined ? [] : [view];
    });
    return { kind: 'no-match', query, message: forPeople(catalog, query, found), agentText: found.text, named, asked: found.asked };
  }
  return { kind: 'match', query, category: categoryView(catalog, found.slug)!, score: found.score.toFixed(3), asked: found.asked };
}

/** What get_provenance answers (the same typed facts), with this server's address in its verification commands. */
export function provenanceView (catalog: Catalog, baseUrl: string): ProvenanceView {
  const p = provenanceFacts(catalog);
  const latest = p.history.latest;
  // The placeholder, when the address is unknown, stays as the tool gives it: the reader replaces it.
  const base = baseUrl === BASE_URL_PLACEHOLDER ? baseUrl : shellQuote(baseUrl);
  return {
    curator: p.curator.name,
    publicKey: p.curator.pubkey,
    version: p.registry.version,
    updated: p.registry.updated,
    sha256: p.signature.sha256,
    signature: p.signature.signature,
    mode: p.signature.signedBy,
    signedBy: SIGNED_BY[p.signature.signedBy],
    history:
      latest === null
        ? 'No signed history: only a registry the curator signs offline has one.'
        : `${p.history.entries} signed version${p.history.entries === 1 ? '' : 's'}, the latest ${latest.version} on ${latest.date}.`,
    verifyCli: p.recipes.cli.map((line) => line.replaceAll(BASE_URL_PLACEHOLDER, () => base)),
    verifyOpenssl: p.recipes.openssl.map((line) => line.replaceAll(BASE_URL_PLACEHOLDER, () => base)),
    expectedOutput: `openssl prints "Signature Verified Successfully" and sha256sum prints ${p.signature.sha256}, the SHA-256 above.`,
  };
}

const STATE_WORDS: Readonly<Record<PeerRow['state'], string>> = {
  fresh: 'verified and current',
  stale: 'verified, but not refreshed lately',
  unavailable: 'not verified yet or unreachable: nothing of it is served',
};

/** What get_endorsements answers (the same typed facts): each endorsed curator and what this server knows of it now. */
export function peerRows (catalog: Catalog, federation: FederationView): PeerRow[] {
  return endorsementFacts(catalog.registry, federation).map((e) => ({
    name: e.name,
    url: e.url,
    href: safeHref(e.url),
    pubkey: e.pubkey,
    since: e.since,
    state: e.state,
    detail:
      e.peerRegistryVersion === null
        ? STATE_WORDS[e.state]
        : `${STATE_WORDS[e.state]}; registry ${e.peerRegistryVersion}, last verified ${e.lastSuccess ?? 'never'}`,
  }));
}

/** The single tools/call an agent can send with no handshake (the 2026-07-28 revision). */
function curlExample (mcpUrl: string): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'get_sources',
      arguments: { query: 'learn rust programming' },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  return [
    `curl -s ${shellQuote(mcpUrl)} \\`,
    "  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\",
    "  -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_sources' \\",
    `  -d '${body}'`,
  ].join('\n');
}

export interface HomeInput {
  /** The address this request reached the server at, such as http://127.0.0.1:3000. */
  readonly baseUrl: string;
  /** The search form's query, when one was sent. */
  readonly query?: string | undefined;
  /** Who searched, as one client key: answers are remembered per asker (see ToolContext.asker). */
  readonly asker?: string | undefined;
  readonly federation?: FederationView;
  /** The demand signal's settings, and the public list when DEMAND_PUBLIC=true. */
  readonly demand?: DemandInput;
}

export interface DemandInput {
  readonly recording: boolean;
  readonly minClients: number;
  readonly windowDays: number;
  readonly uncovered?: readonly string[] | undefined;
}

/** The one sentence the page says about what this server keeps of what it is asked. */
export function demandSentence ({ recording, minClients, windowDays }: DemandInput): string {
  return recording
    ? `This server's demand signal counts what is asked, never who: the outcome of each query and its words, shown to the curator only once ${minClients} different clients have asked the same thing on one day, and deleted after ${windowDays} days; it keeps no addresses, session ids or queries as typed.`
    : "This server's demand signal is off: it counts nothing of what is asked.";
}

const NO_DEMAND: DemandInput = { recording: false, minClients: 5, windowDays: 30 };

export function homeView (catalog: Catalog, { baseUrl, query, asker, federation = NO_FEDERATION, demand = NO_DEMAND }: HomeInput): HomeView {
  const mcpUrl = `${baseUrl}/mcp`;
  return {
    title: query === undefined ? 'Three Good Sources' : `${query.slice(0, 60)} · Three Good Sources`,
    mcpUrl,
    clientConfig: JSON.stringify({ mcpServers: { 'three-good-sources': { type: 'http', url: mcpUrl } } }, null, 2),
    curl: curlExample(mcpUrl),
    // In the curator's order, as the registry lists them.
    categories: Object.keys(catalog.registry.categories).map((slug) => categoryView(catalog, slug)!),
    provenance: provenanceView(catalog, baseUrl),
    peers: peerRows(catalog, federation),
    // An empty search box sent is no search: the front page, not "Sources for “”".
    search: query === undefined || query.trim() === '' ? undefined : searchView(catalog, query, asker),
    maxQueryLength: MAX_QUERY_LENGTH,
    demand: { kept: demandSentence(demand), uncovered: demand.uncovered },
  };
}

export function categoryPageView (catalog: Catalog, slug: string, baseUrl: string): CategoryPageView | undefined {
  const category = categoryView(catalog, slug);
  if (category === undefined) return undefined;
  return { title: `${category.name} · Three Good Sources`, category, provenance: provenanceView(catalog, baseUrl), maxQueryLength: MAX_QUERY_LENGTH };
}

export function notFoundView (catalog: Catalog, path: string, baseUrl: string): NotFoundView {
  // Enough of the address to recognise it, never a wall of it.
  const shown = path.length > 120 ? `${path.slice(0, 117)}...` : path;
  return { title: 'Not found · Three Good Sources', path: shown, provenance: provenanceView(catalog, baseUrl), maxQueryLength: MAX_QUERY_LENGTH };
}
