import type { FastifyRequest } from 'fastify';
import type { Config } from '../../src/config.js';
import { hostAllowed } from '../infrastructure/origin-policy.js';

export type PublicUrlOptions = Pick<Config, 'publicUrl' | 'allowedHosts'>;

/** A host name or IP literal, with an optional port: what a Host header may hold. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The address this server is reached at, for what it tells others to use (the server card's MCP
 * URL, the page's examples): PUBLIC_URL when set. Otherwise the request's: a forwarded host
 * (X-Forwarded-Host, read only from a TRUST_PROXY proxy) only when it is a localhost name or in
 * ALLOWED_HOSTS, else the Host header the proxy passed; a scheme other than http or https is
 * http. A proxy that passes the client's X-Forwarded-Host on unchecked would otherwise let anyone
 * write the card a shared cache keeps for 300 s (issue 31, finding 4). Undefined when the Host
 * header names no host.
 */
export function publicBaseUrl (request: FastifyRequest, { publicUrl, allowedHosts }: PublicUrlOptions): string | undefined {
  if (publicUrl !== undefined) return publicUrl;
  const forwarded = request.host !== request.headers.host;
  const host = forwarded && !hostAllowed(request.host, allowedHosts) ? request.headers.host : request.host;
  const scheme = request.protocol === 'https' ? 'https' : 'http';
  return host !== undefined && HOST.test(host) ? `${scheme}://${host}` : undefined;
}
