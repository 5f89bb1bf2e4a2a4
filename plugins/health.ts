import type { FastifyPluginAsync } from 'fastify';
import type { Catalog } from '../src/catalog.js';

export interface HealthOptions {
  readonly catalog: () => Catalog;
  readonly serverVersion: string;
}

export const health: FastifyPluginAsync<HealthOptions> = async (app, { catalog, serverVersion }) => {
  app.get('/health', async () => ({
    status: 'ok',
    version: serverVersion,
    categories: Object.keys(catalog().registry.categories).length,
  }));
};
