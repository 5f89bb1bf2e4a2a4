import t from 'tap';
import { editDistance } from '../../../src/matcher/edit-distance.js';
import { craftedQueries, nearIdentical, ordinaryOfSameSize, phraseFlood, spellingFlood } from '../../../scripts/lib/hostile-registries.js';
import { editDistanceIndexSteps, sharedSpellingSteps } from '../../../src/matcher/spelling.js';
import { runAtOnce } from '../../../src/util/slices.js';
import { Federation, type PeerEvent } from '../../../src/federation/federation.js';
import { buildMatcher, PEER_INDEX_LIMITS, prepareQuery } from '../../../src/matcher/matcher.js';
import type { Endorsement, Registry } from '../../../src/registry/types.js';
import { newKey, peerDocuments, peerRegistry, servePeer } from '../../helpers/peers.js';
import { sleep } from '../../helpers/process.js';

/** A federation of one peer serving `registry` (signed with `key`); resolves once it is accepted or refused. */
async function fetchOnce (t: { teardown(fn: () => unknown): void }, key: ReturnType<typeof newKey>, registry: Registry) {
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
    ['more distinct words than the limit, each spelling bucket within its own', (k) => ordinaryOfSameSize(k, 'spelling', 1, PEER_INDEX_LIMITS.words + 1), /^more than 50000 distinct words$/],
  ];
  for (const [what, make, reason] of cases) {
    const key = newKey();
    const { f, events } = await fetchOnce(t, key, make(key.publicKey));
    t.match(events, [{ kind: 'refused', reason }], what);
    t.equal(f.peers()[0]!.state, 'unavailable', `${what}: nothing served`);
  }
});

t.test('a copy at the limits is accepted, and every query crafted against it is still answered', async (t) => {
  // The flooded copies at the limits, and the ordinary control npm run bench:hostile compares them with.
  for (const make of [(k: string) => spellingFlood(k), (k: string) => phraseFlood(k), (k: string) => ordinaryOfSameSize(k, 'phrases')]) {
    const key = newKey();
    const { f, events } = await fetchOnce(t, key, make(key.publicKey));
    t.match(events, [{ kind: 'updated' }]);
    const matcher = f.peers()[0]!.copy!.matcher;
    // Answered as by a matcher of its own registry: the bounds change nothing a real query meets.
    const alone = buildMatcher(f.peers()[0]!.copy!.registry, 0.45);
    const told = (o: ReturnType<typeof alone.match>) => JSON.stringify([o.kind, o.kind === 'match' ? o.slug : o.reason]);
    const queries = craftedQueries(20);
    t.same(queries.map((q) => told(matcher.match(q, undefined, prepareQuery(q)))), queries.map((q) => told(alone.match(q))));
    const { rankings, corrections } = matcher.remembered();
    t.ok(rankings <= 20 && corrections <= 60, 'what is remembered grows with the queries, not with the registry');
  }
});

t.test("the shared spelling index answers each peer as its own index would, and one peer's flood of near words crowds out no other's", async (t) => {
  const honest = newKey();
  const flooding = newKey();
  // The flooding peer fills the buckets the honest peer's words live in with anagrams of them:
  // the same letters (so the cheap letter test passes them and each costs an edit distance), but
  // two or more edits away (so none is a correction). Listed first, its words are read first.
  const honestRegistry = peerRegistry(honest);
  const words = [...new Set(Object.values(honestRegistry.categories).flatMap((c) => `${c.name} ${c.description} ${c.queryPatterns.join(' ')}`.toLowerCase().split(/[^a-z]+/)))].filter((w) => w.length >= 6);
  const shuffle = (w: string, seed: number) => {
    const tail = [...w.slice(1)];
    for (let i = tail.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const j = seed % (i + 1);
      [tail[i], tail[j]] = [tail[j]!, tail[i]!];
    }
    return w[0] + tail.join('');
  };
  const near = [...new Set(words.flatMap((w) => Array.from({ length: 120 }, (_, i) => shuffle(w, i + 1))))]
    .filter((n) => words.every((w) => editDistance(n, w, 2) > 2));
  const flood = spellingFlood(flooding.publicKey, 10);
  const floodRegistry = { ...flood, categories: { ...flood.categories, near: { ...Object.values(flood.categories)[0]!, queryPatterns: Array.from({ length: Math.ceil(near.length / 40) }, (_, i) => near.slice(i * 40, i * 40 + 40).join(' ')) } } } as Registry;
  const urls = [await servePeer(t, peerDocuments(honestRegistry, honest)), await servePeer(t, peerDocuments(floodRegistry, flooding))];
  const f = new Federation({ refreshMs: 60_000, cacheDir: undefined, allowLoopbackHttp: true, matchThreshold: 0.45 });
  f.setPeers([
    { pubkey: flooding.publicKey, url: urls[1]!, name: 'Flooding', since: '2026-11-26' },
    { pubkey: honest.publicKey, url: urls[0]!, name: 'Honest', since: '2026-11-26' },
  ]);
  t.teardown(() => f.stop());
  f.start();
  for (let i = 0; i < 400 && f.peers().some((p) => p.state !== 'fresh'); i++) await sleep(50);
  await f.idle();
  // Typos of the honest peer's words (a letter dropped, two swapped), asked of both peers.
  const typos = words.slice(0, 30).flatMap((w) => [`${w.slice(0, 2)}${w.slice(3)} guide`, `how to ${w.slice(0, 3)}${w[4]}${w[3]}${w.slice(5)}`]);
  const [own, flooded] = [buildMatcher(honestRegistry as Registry, 0.45), buildMatcher(floodRegistry, 0.45)];
  const peersNow = f.peers();
  // What an agent is told: the outcome, the category, the score and the runner-up.
  const told = (o: ReturnType<typeof own.match>) => JSON.stringify([o.kind, o.kind === 'match' ? [o.slug, o.score, o.runnerUp] : [o.reason, o.closest]]);
  for (const [view, alone] of [[peersNow[1]!, own], [peersNow[0]!, flooded]] as const) {
    const shared = view.copy!.matcher;
    const differ = typos.filter((q) => told(shared.match(q, undefined, prepareQuery(q))) !== told(alone.match(q, undefined, prepareQuery(q))));
    t.same(differ, [], `${view.endorsement.name}: every typo query answered as its own index answers it`);
  }
  t.match(peersNow[1]!.copy!.matcher.match('amteur radio licnese'), { kind: 'match', slug: 'amateur-radio-licensing' }, 'the honest peer still corrects its own words, flood or not');
});

t.test('the shared spelling index keeps each registry\'s scan budget too: a registry whose own index stops at 512 words gets no more from the shared one (review finding)', async (t) => {
  const crowded = [...nearIdentical('x', 8, 300), ...nearIdentical('x', 9, 300), 'xabcdefghi'];
  const other = ['xabcdefghk', 'xylophone'];
  const own = runAtOnce(editDistanceIndexSteps(crowded));
  const shared = runAtOnce(sharedSpellingSteps([other, crowded]));
  for (const word of ['xabcdefghj', 'xxxxxxabc', 'xylophon']) {
    t.same(shared.forVocabulary(1).candidates(word), own.candidates(word), `${word}: as the registry's own index answers`);
    t.same(shared.forVocabulary(0).candidates(word), runAtOnce(editDistanceIndexSteps(other)).candidates(word), `${word}: and the other registry's, unaffected`);
  }
});
