import type { FastifyPluginAsync } from 'fastify';
import type { Catalog } from '../src/catalog.js';
import { serverCard } from '../src/discovery/server-card.js';
import { MCP_PATH } from './support/http-errors.js';

export interface DiscoveryOptions {
  readonly catalog: () => Catalog;
  readonly serverVersion: string;
  readonly registryName: string;
}

/**
 * GET /.well-known/mcp/server-card.json: the MCP Server Card, readable from any origin (it is
 * public and has no effects). The MCP URL is the one the client used: scheme and host as this
 * request came (through a trusted proxy, as it forwards them).
 */
export const discoveryRoutes: FastifyPluginAsync<DiscoveryOptions> = async (app, { catalog, serverVersion, registryName }) => {
  app.get('/.well-known/mcp/server-card.json', async (request, reply) => {
    const mcpUrl = `${request.protocol}://${request.host}${MCP_PATH}`;
    reply.header('access-control-allow-origin', '*');
    // The card names the host it was asked by: a shared cache must keep one per host.
    reply.header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
    reply.header('cache-control', 'public, max-age=300');
    return serverCard({ name: registryName, version: serverVersion, registry: catalog().registry, mcpUrl });
  });
};
