import type { PeerState, PeerView } from '../../federation/federation.js';
import { peerText } from '../../federation/peer-text.js';
import { askedOf } from '../../demand/asked.js';
import { byWeight, prepareQuery, type MatchCandidate } from '../../matcher/matcher.js';
import { SOURCE_TYPES, type Category, type Registry } from '../../registry/types.js';
import { DECLINE_REASONS, declinedDetail, getSources } from './get-sources.js';
import { READ_ONLY, answer, errorSchema, failure, schema, type Tool } from './tool.js';

/** At most this many near misses are named when nothing matches. */
const CLOSEST_SHOWN = 3;

interface Answer {
  readonly trust: 'curator' | 'endorsed';
  /**
   * Who vouches for the answer, as this server knows them: for a peer, the name and key of this
   * registry's endorsement (signed by our curator), never what the peer says of itself.
   */
  readonly curator: { readonly name: string; readonly pubkey: string; readonly declaredName?: string };
  readonly registryVersion: string;
  /** Null for this server's own registry. */
  readonly peer: { readonly url: string; readonly state: PeerState; readonly stale: boolean } | null;
  readonly category: { readonly slug: string; readonly name: string; readonly description: string };
  readonly score: number;
  readonly sources: readonly { rank: number; name: string; url: string; type: string; why: string }[];
}

function answerFrom (registry: Registry, slug: string, category: Category, score: number): Answer {
  return {
    trust: 'curator',
    curator: { name: registry.curator.name, pubkey: registry.curator.pubkey },
    registryVersion: registry.version,
    peer: null,
    category: { slug, name: category.name, description: category.description },
    score,
    sources: category.sources.map(({ rank, name, url, type, why }) => ({ rank, name, url, type, why })),
  };
}

/** A peer's answer: its texts were made one line, printable and short when its copy was accepted. */
function peerAnswerFrom (view: PeerView, registry: Registry, slug: string, category: Category, score: number): Answer {
  const { endorsement } = view;
  return {
    ...answerFrom(registry, slug, category, score),
    trust: 'endorsed',
    curator: { name: endorsement.name, pubkey: endorsement.pubkey, declaredName: registry.curator.name },
    peer: { url: endorsement.url, state: view.state, stale: view.state !== 'fresh' },
  };
}

/** A peer's text in our text: quoted (JSON's quoting, so a quote inside cannot end it), so it reads as data. */
const quoted = (text: string) => JSON.stringify(text);

function describe (a: Answer, i: number): string[] {
  if (a.peer === null) {
    return [
      `${i + 1}. ${a.category.name} (${a.category.slug}), score ${a.score.toFixed(3)}, from this server's curator ${a.curator.name} (trust: curator)`,
      `   Curator public key: ${a.curator.pubkey}; registry version ${a.registryVersion}`,
      ...a.sources.flatMap((s) => [`   ${s.rank}. ${s.name}`, `      URL: ${s.url}`, `      Type: ${s.type}`, `      Why: ${s.why}`]),
    ];
  }
  // Our words first (who, the trust, the key, all from our own endorsement); every text the peer
  // chose follows, quoted, on lines of its own.
  return [
    `${i + 1}. From ${a.curator.name}, a curator this registry endorses (trust: endorsed; peer ${a.peer.state}${a.peer.stale ? ': its copy is old, the peer has not answered lately' : ''})`,
    `   Endorsed key: ${a.curator.pubkey}; peer registry version ${quoted(peerText(a.registryVersion, 64))}; the peer names its curator ${quoted(a.curator.declaredName ?? '')}`,
    `   Category (as the peer words it): ${quoted(a.category.name)} (${a.category.slug}), score ${a.score.toFixed(3)}`,
    ...a.sources.flatMap((s) => [`   ${s.rank}. ${quoted(s.name)}`, `      URL: ${s.url}`, `      Type: ${s.type}`, `      Why: ${quoted(s.why)}`]),
  ];
}

const answerSchema = schema.object({
  trust: { enum: ['curator', 'endorsed'] },
  curator: schema.object({ name: schema.string, pubkey: schema.string, declaredName: schema.string }, ['name', 'pubkey']),
  registryVersion: schema.string,
  peer: { anyOf: [schema.object({ url: schema.string, state: { enum: ['fresh', 'stale', 'unavailable'] }, stale: { type: 'boolean' } }), { type: 'null' }] },
  category: schema.object({ slug: schema.string, name: schema.string, description: schema.string }),
  score: { type: 'number', minimum: 0, maximum: 1 },
  sources: {
    type: 'array',
    items: schema.object({ rank: { type: 'integer', minimum: 1, maximum: 3 }, name: schema.string, url: schema.string, type: { enum: SOURCE_TYPES }, why: schema.string }),
  },
});

export const getFederatedSources: Tool = {
  definition: {
    name: 'get_federated_sources',
    title: 'Get sources from this curator and the curators it endorses',
    description:
      'Like get_sources, but also asks the registries of the curators this registry endorses (each verified against the endorsed key). ' +
      "Returns this server's own best match (trust \"curator\") and each endorsed curator's best match (trust \"endorsed\", with the name and key this registry endorses it under, the name the peer gives itself, " +
      'registry version and state: fresh, or stale when its copy is old), best score first, each with its three ranked sources. ' +
      'If nothing matches anywhere it returns an error result naming the closest candidates.',
    inputSchema: getSources.definition.inputSchema,
    // Answers; or an error: nothing matched anywhere (no-match), or refused as get_sources refuses it (its decline).
    outputSchema: { type: 'object', anyOf: [schema.object({ answers: { type: 'array', minItems: 1, items: answerSchema } }), errorSchema(['no-match', ...DECLINE_REASONS], { declined: declinedDetail })] },
    annotations: READ_ONLY,
  },

  run (args, catalog, context) {
    const query = args.query as string;
    const threshold = args.threshold as number | undefined;
    const answers: Answer[] = [];
    const closest: (MatchCandidate & { where: string })[] = [];
    // Normalised once, then asked of every registry.
    const prepared = prepareQuery(query);
    const local = catalog.matcher.match(query, threshold, prepared, context?.asker);
    if (local.kind === 'match') answers.push(answerFrom(catalog.registry, local.slug, local.category, local.score));
    // A query with no words, too long or one everyday word is refused as get_sources refuses it; a weak or
    // too-close local answer leaves the question to the peers.
    else if (local.reason === 'empty-query' || local.reason === 'too-long' || local.reason === 'too-vague') return getSources.run(args, catalog, context);
    // The candidates each registry's decline names, as get_sources names them.
    else for (const c of local.candidates) closest.push({ ...c, where: 'this registry' });

    const peers = context?.federation.peers() ?? [];
    for (const peer of peers) {
      const copy = peer.copy;
      if (copy === undefined) continue;
      const outcome = copy.matcher.match(query, threshold, prepared, context?.asker);
      if (outcome.kind === 'match') {
        answers.push(peerAnswerFrom(peer, copy.registry, outcome.slug, outcome.category, outcome.score));
      } else for (const c of outcome.candidates) closest.push({ ...c, where: `${peer.endorsement.name}'s registry` });
    }
    // This curator's view of the query: answered here, by a peer, or declined as get_sources declines it.
    if (threshold === undefined) context?.asked?.(askedOf(catalog.matcher, prepared, local, answers.length > 0));
    if (answers.length === 0) {
      const named = closest
        .sort(byWeight)
        .slice(0, CLOSEST_SHOWN)
        .map((c) => `${c.slug} in ${c.where} (score ${c.score.toFixed(3)}${c.similarity === undefined ? '' : `, similarity in meaning ${c.similarity.toFixed(3)}`})`);
      return failure(
        `No category of this registry${endorsedRegistries(peers.length)} matches the query well enough. ` +
          (named.length > 0 ? `The closest: ${named.join(', ')}. ` : 'No category shares any words with it. ') +
          'Rephrase with the topic\'s main words, or call list_categories for this registry\'s topics.',
        'no-match'
      );
    }
    answers.sort((a, b) => b.score - a.score);
    const text = [`${answers.length} answer${answers.length === 1 ? '' : 's'}, best score first:`, '', ...answers.flatMap((a, i) => [...describe(a, i), ''])];
    return answer(text.join('\n').trimEnd(), { answers });
  },
};

/** " or of the 3 endorsed registries", " or of the one endorsed registry", or nothing when this curator endorses none. */
function endorsedRegistries (count: number): string {
  if (count === 0) return '';
  return count === 1 ? ' or of the one endorsed registry' : ` or of the ${count} endorsed registries`;
}
