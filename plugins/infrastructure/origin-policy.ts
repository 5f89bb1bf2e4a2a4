import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import type { Config } from '../../src/config.js';
import { Failures } from '../../src/mcp/errors.js';
import { BoundedMemo } from '../../src/util/bounded-memo.js';
import { isMcpRequest, sendFailure } from '../support/http-errors.js';

export interface OriginPolicyOptions extends Pick<Config, 'allowedOrigins' | 'allowedHosts'> {
  /** The address the server listens on: on a loopback one, the Host header is checked too. */
  readonly listenHost: Config['host'];
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Localhost origins on any port, plus the configured ones. */
export function originAllowed (origin: string, allowed: readonly string[]): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (!/^https?:$/.test(url.protocol)) return false;
  return LOCAL_HOSTNAMES.has(url.hostname) || allowed.includes(url.origin);
}

/**
 * A loopback address or name: localhost (any case, a trailing dot, a .localhost name), ::1 or
 * 127.0.0.0/8 however written. Read as the WHATWG URL parser reads a host, which is how the
 * resolver reads HOST too: "127.1", "2130706433" and "0x7f.1" are 127.0.0.1, "0:0:0:0:0:0:0:1"
 * is ::1, "::ffff:127.0.0.1" is IPv4-mapped loopback. A spelling missed here would silently turn
 * the Host check (the DNS-rebinding guard) off for a server that does listen on loopback.
 */
export function isLoopback (host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const asUrlHost = bare.includes(':') ? `[${bare}]` : bare;
  const name = URL.canParse(`http://${asUrlHost}`) ? new URL(`http://${asUrlHost}`).hostname.replace(/\.$/, '') : '';
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '[::1]' ||
    /^127\.\d+\.\d+\.\d+$/.test(name) ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name)
  );
}

/** A Host header naming this machine by a localhost name, or one of `allowed` (a proxy's public name), on any port. */
export function hostAllowed (host: string | undefined, allowed: readonly string[] = []): boolean {
  if (host === undefined) return false;
  const hostname = hostnames.get(host, () => (URL.canParse(`http://${host}`) ? new URL(`http://${host}`).hostname : ''));
  return hostname !== '' && (LOCAL_HOSTNAMES.has(hostname) || isLoopback(hostname) || allowed.includes(hostname));
}

/** Every request carries a Host header, nearly always the same one: parse each value once. */
const hostnames = new BoundedMemo<string, string>(256);

/**
 * Where each check protects: a foreign Origin is refused on the MCP endpoint, the one route with
 * effects (a browser page elsewhere reads no other route: CORS gives it no access). On a loopback
 * bind the Host check guards every route, since a DNS-rebinding page is same-origin to the browser
 * and CORS no longer stands in its way. Refusals answer in the route family's error shape.
 *
 * One allow-list for two jobs. @fastify/cors only decides which response headers a browser
 * sees; it blocks nothing. The 403 is ours: "If the Origin header is present and invalid,
 * servers MUST respond with HTTP 403 Forbidden" (transports, 2025-11-25 and 2026-07-28).
 * Bound to loopback, a DNS-rebinding page reaches us under its own host name, so the Host
 * header must be a localhost name as well, or a name the operator listed (ALLOWED_HOSTS: the
 * public name a reverse proxy on this machine passes on).
 */
export const originPolicy = fp<OriginPolicyOptions>(
  async (app, { allowedOrigins, allowedHosts, listenHost }) => {
    const checkHost = isLoopback(listenHost);
    app.addHook('onRequest', (request, reply, done) => {
      const origin = request.headers.origin;
      if (origin !== undefined && isMcpRequest(request) && !originAllowed(origin, allowedOrigins)) {
        sendFailure(request, reply, Failures.forbiddenOrigin);
      } else if (checkHost && !hostAllowed(request.headers.host, allowedHosts)) {
        // The operator's log says which Host and which setting, as the reply does.
        request.log.warn({ host: request.headers.host?.slice(0, 100) }, 'refused a Host not in ALLOWED_HOSTS on a loopback server');
        sendFailure(request, reply, Failures.forbiddenHost(request.headers.host));
      } else {
        done();
      }
    });
    await app.register(cors, {
      origin: (origin, cb) => cb(null, origin !== undefined && originAllowed(origin, allowedOrigins)),
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['Content-Type', 'Accept', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'],
      exposedHeaders: ['Mcp-Session-Id'],
      maxAge: 600,
    });
  },
  { name: 'three-good-sources-origin-policy' }
);
