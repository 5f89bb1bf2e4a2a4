import type { FastifyPluginAsync } from 'fastify';
import type { Catalog } from '../src/mcp/tools/tool.js';

export interface RegistryRoutesOptions {
  readonly catalog: () => Catalog;
}

/** GET /registry: the registry exactly as loaded and served. */
export const registryRoutes: FastifyPluginAsync<RegistryRoutesOptions> = async (app, { catalog }) => {
  app.get('/registry', async () => catalog().registry);
};
