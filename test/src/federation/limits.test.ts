import t from 'tap';
import { craftedQueries, phraseFlood, spellingFlood } from '../../../scripts/lib/hostile-registries.js';
import { Federation, type PeerEvent } from '../../../src/federation/federation.js';
import { PEER_INDEX_LIMITS, prepareQuery } from '../../../src/matcher/matcher.js';
import type { Endorsement, Registry } from '../../../src/registry/types.js';
import { newKey, peerDocuments, servePeer } from '../../helpers/peers.js';
import { sleep } from '../../helpers/process.js';

/** A federation of one peer serving `registry` (signed with `key`); resolves once it is accepted or refused. */
async function fetchOnce(t: { teardown(fn: () => unknown): void }, key: ReturnType<typeof newKey>, registry: Registry) {
  const url = await servePeer(t, peerDocuments(registry, key));
  const events: PeerEvent[] = [];
  const f = new Federation({ refreshMs: 60_000, cacheDir: undefined, allowLoopbackHttp: true, matchThreshold: 0.45, onEvent: (e) => events.push(e) });
  const endorsement: Endorsement = { pubkey: key.publicKey, url, name: 'Crafted', since: '2026-11-26' };
  f.setPeers([endorsement]);
  t.teardown(() => f.stop());
  f.start();
  for (let i = 0; i < 600 && events.length === 0; i++) await sleep(50);
  return { f, events };
}

t.test('a copy past the index limits is refused with the limit it passes, and logged; nothing of it is served', async (t) => {
  const cases: [string, (pubkey: string) => Registry, RegExp][] = [
    ['a spelling bucket over the limit', (k) => spellingFlood(k, PEER_INDEX_LIMITS.wordsPerSpellingBucket + 1), /^more than 500 distinct words of the same first letter and length$/],
    ['keyword phrases and not-about entries over the limit per first word', (k) => phraseFlood(k, PEER_INDEX_LIMITS.phrasesPerWord + 1, 2), /^more than 256 keyword phrases starting with the same word$/],
  ];
  for (const [what, make, reason] of cases) {
    const key = newKey();
    const { f, events } = await fetchOnce(t, key, make(key.publicKey));
    t.match(events, [{ kind: 'refused', reason }], what);
    t.equal(f.peers()[0]!.state, 'unavailable', `${what}: nothing served`);
  }
});

t.test('a copy at the limits is accepted, and every query crafted against it is still answered', async (t) => {
  for (const make of [(k: string) => spellingFlood(k), (k: string) => phraseFlood(k)]) {
    const key = newKey();
    const { f, events } = await fetchOnce(t, key, make(key.publicKey));
    t.match(events, [{ kind: 'updated' }]);
    const matcher = f.peers()[0]!.copy!.matcher;
    for (const query of craftedQueries(20)) {
      const outcome = matcher.match(query, undefined, prepareQuery(query));
      t.ok(outcome.kind === 'match' || outcome.kind === 'no-match');
    }
    const { rankings, corrections } = matcher.remembered();
    t.ok(rankings <= 20 && corrections <= 60, 'what is remembered grows with the queries, not with the registry');
  }
});
