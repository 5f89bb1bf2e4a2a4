import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../../src/catalog.js';

export interface RegistryRoutesOptions {
  readonly catalog: () => Catalog;
}

/**
 * GET /registry: the exact RFC 8785 bytes the signature covers. GET /registry/signature: the
 * signature document (the curator's own file, byte for byte, when the curator signed).
 * GET /registry/history: the signed history, oldest first. The first two carry the registry's
 * SHA-256 as their ETag, so a client can tell that the pair it fetched belongs together across a
 * reload; the history carries its own bytes' SHA-256 (its newest entry names the registry's).
 * Shapes are a public interface (README, "Verify a registry").
 */
export const registryRoutes: FastifyPluginAsync<RegistryRoutesOptions> = async (app, { catalog }) => {
  const serve = (pick: (c: Catalog) => Buffer, tag: (c: Catalog) => string) => async (request: FastifyRequest, reply: FastifyReply) => {
    // One read of the catalog: the body and its ETag come from the same registry.
    const current = catalog();
    const etag = `"${tag(current)}"`;
    reply.header('etag', etag).header('cache-control', 'no-cache');
    if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send();
    return reply.type('application/json').send(pick(current));
  };
  const registryDigest = (c: Catalog) => c.signed.sha256;
  app.get('/registry', serve((c) => c.signed.canonical, registryDigest));
  app.get('/registry/signature', serve((c) => c.signatureBytes, registryDigest));
  app.get('/registry/history', serve((c) => c.historyBytes, (c) => c.historySha256));
};
