import type { FastifyPluginAsync } from 'fastify';
import type { FederationView } from '../../src/federation/federation.js';

export interface FederationRoutesOptions {
  readonly federation: FederationView;
}

const when = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** GET /federation/peers: every endorsed peer with its state, as the README describes. */
export const federationRoutes: FastifyPluginAsync<FederationRoutesOptions> = async (app, { federation }) => {
  app.get('/federation/peers', async () => ({
    peers: federation.peers().map((p) => ({
      name: p.endorsement.name,
      pubkey: p.endorsement.pubkey,
      url: p.endorsement.url,
      since: p.endorsement.since,
      state: p.state,
      registryVersion: p.copy?.version ?? null,
      categories: p.copy === undefined ? null : Object.keys(p.copy.registry.categories).length,
      signedBy: p.copy?.signedBy ?? null,
      fetchedAt: when(p.copy?.fetchedAt),
      lastSuccess: when(p.lastSuccess),
      lastError: p.lastError === undefined ? null : { at: when(p.lastError.at), reason: p.lastError.reason },
    })),
  }));
};
