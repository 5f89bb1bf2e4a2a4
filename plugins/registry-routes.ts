import type { FastifyPluginAsync } from 'fastify';
import type { Catalog } from '../src/catalog.js';
import { signatureDocument } from '../src/provenance/signature.js';

export interface RegistryRoutesOptions {
  readonly catalog: () => Catalog;
}

/**
 * GET /registry: the exact RFC 8785 bytes the curator's signature covers, so that anyone can
 * verify what they downloaded. GET /registry/signature: how to check them. Both shapes are a
 * public interface (README, "Verify a registry").
 */
export const registryRoutes: FastifyPluginAsync<RegistryRoutesOptions> = async (app, { catalog }) => {
  app.get('/registry', async (_request, reply) => reply.type('application/json').send(catalog().signed.canonical));
  app.get('/registry/signature', async () => signatureDocument(catalog().signed));
};
