import { categoryPath, sourceByRank } from '../registry/paths.js';
import type { Registry } from '../registry/types.js';

export interface LinkOptions {
  /** Links visited at the same time. */
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
}

const DEFAULTS = { concurrency: 4, timeoutMs: 10_000, maxRedirects: 5 };

/** TLS failures by the code Node gives them, said plainly. */
const TLS_CODES = /^(CERT_|ERR_TLS_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_|ERR_SSL_)/;

/** The same site: one host, give or take "www.". */
const site = (url: URL) => url.hostname.replace(/^www\./, '');

/** What is wrong with one link, or undefined when it answers 2xx on its own site. */
async function problemOf (start: string, { timeoutMs, maxRedirects }: Required<LinkOptions>): Promise<string | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  let url = new URL(start);
  for (let hops = 0; ; hops++) {
    let res: Response;
    try {
      res = await fetch(url, { signal, redirect: 'manual', headers: { 'user-agent': 'three-good-sources link check' } });
    } catch (err) {
      if (signal.aborted) return `no answer within ${timeoutMs / 1000} s`;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const code = cause?.code ?? cause?.message ?? 'error';
      return TLS_CODES.test(code) ? `TLS failure (${code})` : `unreachable (${code})`;
    }
    await res.body?.cancel();
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
      if (next === undefined) return `redirects to something that is not a URL (HTTP ${res.status})`;
      if (site(next) !== site(new URL(start))) return `redirects to another site: ${next.href}`;
      if (hops + 1 > maxRedirects) return `more than ${maxRedirects} redirects`;
      url = next;
      continue;
    }
    return res.status >= 200 && res.status < 300 ? undefined : `dead (HTTP ${res.status})`;
  }
}

/**
 * Visits every source URL of a registry (each URL once, a few at a time, a timeout each,
 * redirects followed a few hops within the same site) and returns one `place: url: problem`
 * line per link that is dead, moved to another site, or fails TLS: link rot a curator should
 * learn of before an agent does.
 */
export async function checkLinks (registry: Registry, options: LinkOptions = {}): Promise<LinkReport> {
  const settings = { ...DEFAULTS, ...options };
  const places = new Map<string, string[]>();
  for (const [slug, c] of Object.entries(registry.categories)) {
    for (const s of c.sources) places.set(s.url, [...(places.get(s.url) ?? []), categoryPath(slug, sourceByRank(s.rank))]);
  }
  const urls = [...places.keys()];
  const problems = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const problem = await problemOf(url, settings);
      if (problem !== undefined) problems.set(url, problem);
    }
  };
  await Promise.all(Array.from({ length: Math.min(settings.concurrency, urls.length) }, worker));
  // Not one link answered (no HTTP reply, no TLS handshake): the network is what failed, not the
  // links. One line says so, instead of every link reported unreachable.
  const reached = urls.filter((u) => !NO_ANSWER.test(problems.get(u) ?? '')).length;
  if (urls.length > 0 && reached === 0) {
    const causes = [...new Set(urls.map((u) => problems.get(u)!))].slice(0, 3).join(', ');
    return { problems: [], offline: `none of the ${urls.length} links could be reached (${causes}): this machine seems to have no network, so the links were not checked` };
  }
  return { problems: urls.filter((u) => problems.has(u)).flatMap((u) => places.get(u)!.map((place) => `${place}: ${u}: ${problems.get(u)}`)) };
}

/** The problems that mean no answer came at all. */
const NO_ANSWER = /^(unreachable \(|no answer within )/;

export interface LinkReport {
  /** One `place: url: problem` line per link that is dead, moved to another site, or fails TLS. */
  readonly problems: readonly string[];
  /** Set when not one link could be reached: why, in one line; `problems` is then empty. */
  readonly offline?: string;
}
