import type { FastifyPluginAsync } from 'fastify';
import type { Catalog } from '../../src/catalog.js';
import { serverCard } from '../../src/discovery/server-card.js';
import { MCP_PATH, plainError } from '../support/http-errors.js';
import { publicBaseUrl, type PublicUrlOptions } from '../support/public-url.js';

export interface DiscoveryOptions {
  readonly catalog: () => Catalog;
  readonly serverVersion: string;
  readonly registryName: string;
  readonly publicUrl: PublicUrlOptions;
}

/**
 * GET /.well-known/mcp/server-card.json: the MCP Server Card, readable from any origin (it is
 * public and has no effects). The MCP URL is PUBLIC_URL's, or the one the client used as
 * public-url.ts allows it (a forwarded host only when ALLOWED_HOSTS names it).
 */
export const discoveryRoutes: FastifyPluginAsync<DiscoveryOptions> = async (app, { catalog, serverVersion, registryName, publicUrl }) => {
  app.get('/.well-known/mcp/server-card.json', async (request, reply) => {
    const base = publicBaseUrl(request, publicUrl);
    if (base === undefined) return reply.code(400).send(plainError(400, 'The Host header names no host, so the card cannot say where this server is; send a host name, or set PUBLIC_URL'));
    const mcpUrl = `${base}${MCP_PATH}`;
    reply.header('access-control-allow-origin', '*');
    // Without PUBLIC_URL the card names the host it was asked by: a shared cache must keep one per host.
    if (publicUrl.publicUrl === undefined) reply.header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
    reply.header('cache-control', 'public, max-age=300');
    return serverCard({ name: registryName, version: serverVersion, registry: catalog().registry, mcpUrl });
  });
};
