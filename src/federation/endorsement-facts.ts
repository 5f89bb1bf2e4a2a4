import type { Registry } from '../registry/types.js';
import type { FederationView, PeerState } from './federation.js';

const when = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** One endorsement and what this server knows of its curator's registry now: typed, for the tool and the page. */
export interface EndorsementFacts {
  readonly name: string;
  readonly pubkey: string;
  readonly url: string;
  readonly since: string;
  readonly state: PeerState;
  readonly peerRegistryVersion: string | null;
  readonly lastSuccess: string | null;
}

export function endorsementFacts (registry: Registry, federation: FederationView | undefined): EndorsementFacts[] {
  const peers = new Map((federation?.peers() ?? []).map((p) => [p.endorsement.pubkey, p]));
  return registry.endorsements.map(({ name, pubkey, url, since }) => {
    const peer = peers.get(pubkey);
    return { name, pubkey, url, since, state: peer?.state ?? 'unavailable', peerRegistryVersion: peer?.copy?.version ?? null, lastSuccess: when(peer?.lastSuccess) };
  });
}
