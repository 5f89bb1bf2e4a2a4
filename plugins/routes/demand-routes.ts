import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { DemandSignal } from '../../src/demand/signal.js';
import { plainError } from '../support/http-errors.js';

export interface DemandRoutesOptions {
  readonly demand: DemandSignal;
  /** DEMAND_TOKEN: registered only when set. */
  readonly token: string;
  /** This registry's category names by slug, as served now. */
  readonly names: () => ReadonlyMap<string, string>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /demand: the curator's demand report, behind a bearer token. A missing or wrong token gets
 * 401 and nothing else, not even whether anything is recorded.
 */
export const demandRoutes: FastifyPluginAsync<DemandRoutesOptions> = async (app, { demand, token, names }) => {
  const expected = digest(token);
  // Digests of equal length, compared in constant time: the comparison says nothing about how close a guess came.
  const authorized = (header: string | undefined) => {
    const presented = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
    return presented !== undefined && timingSafeEqual(digest(presented), expected);
  };
  app.get('/demand', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (!authorized(request.headers.authorization)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send(plainError(401, 'Unauthorized'));
    }
    try {
      return await demand.report(names());
    } catch {
      request.log.warn('demand report unavailable: its store did not answer');
      return reply.code(503).header('retry-after', '5').send(plainError(503, 'The demand counts cannot be read right now (their store did not answer); try again shortly'));
    }
  });
};
