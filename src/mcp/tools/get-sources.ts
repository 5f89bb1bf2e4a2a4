import { DEFAULT_THRESHOLD, MAX_NORMALIZED_LENGTH } from '../../matcher/matcher.js';
import { BoundedMemo } from '../../util/bounded-memo.js';
import type { MatchOutcome } from '../../matcher/matcher.js';
import { SOURCE_TYPES } from '../../registry/types.js';
import { deepFreeze } from '../../util/deep-freeze.js';
import { READ_ONLY, answer, failure, schema, type Catalog, type Tool, type ToolResult } from './tool.js';

/** Long enough for any real question, short enough that no query can stall the matcher. */
export const MAX_QUERY_LENGTH = 1000;

const candidate = schema.object({ slug: schema.string, score: { type: 'number' } });

const answered = schema.object({
  category: schema.object({ slug: schema.string, name: schema.string, description: schema.string }),

      sources: {
        type: 'array',
        minItems: 3,
        maxItems: 3,
        items: schema.object({
          rank: { type: 'integer', minimum: 1, maximum: 3 },
          name: schema.string,
          url: schema.string,
          type: { enum: SOURCE_TYPES },
          why: schema.string,
        }),
      },
      score: { type: 'number', minimum: 0, maximum: 1 },
      runnerUp: { anyOf: [candidate, { type: 'null' }] },
      registryVersion: schema.string,
      curator: schema.object({ name: schema.string, pubkey: schema.string }),
      lastChanged: schema.object({ date: schema.string, from: { enum: ['history', 'registry'] } }),
});

/** Why a query was declined (see MatchOutcome), the threshold that applied, and the categories it names. */
const declined = schema.object({
  declined: schema.object({
    reason: { enum: ['empty-query', 'too-long', 'below-threshold', 'too-vague', 'too-close'] },
    threshold: { type: 'number' },
    candidates: {
      type: 'array',
      maxItems: 3,
      items: schema.object({ slug: schema.string, name: schema.string, description: schema.string, score: { type: 'number' } }),
    },
    availableSlugs: schema.strings,
    // Present when the query was nearest to a category whose curator marked it as outside its scope.
    outOfScope: schema.object({ slug: schema.string, name: schema.string, entries: schema.strings }),
  }, ['reason', 'threshold', 'candidates', 'availableSlugs']),
});

export const getSources: Tool = {
  definition: {
    name: 'get_sources',
    title: 'Get three good sources',
    description:
      'Find the three best human-vetted sources for a topic. Give a natural-language query such as ' +
      '"learn rust programming", "how do I run a bitcoin full node" or "harden an ubuntu server". ' +
      'Returns the best-matching category (name, slug, description), its match score and the three sources ' +
      'in rank order, each with name, URL, type and why it was chosen, plus the date the category last changed, the registry version and curator. ' +
      'If no category matches well enough it returns an error result naming the closest category and ' +
      'listing every available category slug; it never guesses.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          maxLength: MAX_QUERY_LENGTH,
          description: `What you need sources for, in plain words (at most ${MAX_QUERY_LENGTH} characters).`,
        },
        threshold: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          description: `Minimum match score from 0 to 1; higher is stricter. Omitted: the server's threshold (${DEFAULT_THRESHOLD} unless its operator set another).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      // An answer, or (in an error result) a decline with the candidates it names.
      anyOf: [answered, declined],
    },
    annotations: READ_ONLY,
  },

  run(args, catalog) {
    const query = args.query as string;
    const threshold = args.threshold as number | undefined;
    // Agents ask the same things again and again: answers are remembered per catalog (a reload
    // starts afresh), keyed by the query as sent, since a no-match answer quotes it. Bounded.
    return answersFor(catalog).get(`${threshold ?? ''}\u0000${query}`, () => {
      const outcome = catalog.matcher.match(query, threshold);
      return deepFreeze(outcome.kind === 'match' ? describeMatch(outcome, catalog) : describeNoMatch(outcome, query, catalog));
    });
  },
};

export const MAX_REMEMBERED_ANSWERS = 2000;
const answers = new WeakMap<Catalog, BoundedMemo<string, ToolResult>>();

/** The answers remembered for one catalog; a reload brings a new catalog and starts afresh. */
export function answersFor(catalog: Catalog): BoundedMemo<string, ToolResult> {
  let memo = answers.get(catalog);
  if (memo === undefined) {
    memo = new BoundedMemo(MAX_REMEMBERED_ANSWERS);
    answers.set(catalog, memo);
  }
  return memo;
}

/**
 * When the category last changed: from the signed history when there is one; otherwise all that
 * is known is that it has not changed since the registry's own date.
 */
export function lastChanged({ registry, lastChanged: dates }: Catalog, slug: string): { date: string; from: 'history' | 'registry'; text: string } {
  const date = dates.get(slug);
  return date === undefined
    ? { date: registry.updated, from: 'registry', text: `on or before ${registry.updated} (the registry's date; it has no signed history)` }
    : { date, from: 'history', text: `${date} (signed history)` };
}

function describeMatch(outcome: Extract<MatchOutcome, { kind: 'match' }>, catalog: Catalog): ToolResult {
  const { registry } = catalog;
  const c = outcome.category;
  const changed = lastChanged(catalog, outcome.slug);
  const pubkey = registry.curator.pubkey;
  const lines = [
    `Category: ${c.name}`,
    `Slug: ${outcome.slug}`,
    `Description: ${c.description}`,
    `Match score: ${outcome.score.toFixed(3)}`,
    `Last changed: ${changed.text}`,
    `Registry version: ${registry.version}`,
    catalog.signed.mode === 'ephemeral'
      ? `Curator: ${registry.curator.name} (public key: ${pubkey}; a throwaway development key this server made at start-up: it changes on restart and no curator signed this registry)`
      : `Curator: ${registry.curator.name} (public key: ${pubkey})`,
    '',
    'Sources, best first:',
  ];
  for (const s of c.sources) {
    lines.push('', `${s.rank}. ${s.name}`, `   URL: ${s.url}`, `   Type: ${s.type}`, `   Why: ${s.why}`);
  }
  return answer(lines.join('\n'), {
    category: { slug: outcome.slug, name: c.name, description: c.description },
    sources: c.sources.map(({ rank, name, url, type, why }) => ({ rank, name, url, type, why })),
    score: outcome.score,
    runnerUp: outcome.runnerUp,
    registryVersion: registry.version,
    curator: { name: registry.curator.name, pubkey },
    lastChanged: { date: changed.date, from: changed.from },
  });
}

function describeNoMatch(
  outcome: Extract<MatchOutcome, { kind: 'no-match' }>,
  query: string,
  catalog: Catalog,
): ToolResult {
  const slugs = Object.keys(catalog.registry.categories).sort();
  const available = slugs.length > 0 ? `Available categories: ${slugs.join(', ')}.` : 'The registry has no categories yet.';
  const candidates = outcome.candidates.map(({ slug, score }) => {
    const c = catalog.registry.categories[slug]!;
    return { slug, name: c.name, description: c.description, score };
  });
  const refused = outcome.reason === 'below-threshold' ? outcome.outOfScope : undefined;
  const refusedName = refused === undefined ? '' : catalog.registry.categories[refused.slug]!.name;
  const data = {
    declined: {
      reason: outcome.reason,
      threshold: outcome.threshold,
      candidates,
      availableSlugs: slugs,
      ...(refused === undefined ? {} : { outOfScope: { slug: refused.slug, name: refusedName, entries: refused.entries } }),
    },
  };
  const named =
    candidates.length === 0
      ? ''
      : ` Candidates, closest first (if one is what you meant, call get_sources again with its slug as the query):\n` +
        candidates.map((c, i) => `${i + 1}. ${c.name} (slug: ${c.slug}, score ${c.score.toFixed(3)}): ${c.description}`).join('\n') +
        '\n';
  let why: string;
  if (outcome.reason === 'too-long') {
    why =
      `The query is longer than ${MAX_NORMALIZED_LENGTH} characters once normalised (some characters unfold into several letters, ` +
      `such as "ⅷ" into "viii"). Ask about one topic in a sentence or two.`;
  } else if (outcome.reason === 'empty-query') {
    why = 'The query has no words to match: it is empty or only common words such as "the" or "how". Describe the topic, for example "learn rust programming".';
  } else if (outcome.reason === 'too-vague') {
    why =
      `"${clip(query)}" is a single common word, too vague to answer with three sources: many topics touch it and no category owns it. ` +
      `Say what you need about it, for example "harden ssh on a linux server" or "choose a password manager".`;
  } else if (outcome.reason === 'too-close') {
    why =
      `No category matches "${clip(query)}" clearly enough: ${outcome.closest.slug} (score ${outcome.closest.score.toFixed(3)}) and ` +
      `${outcome.contender.slug} (score ${outcome.contender.score.toFixed(3)}) are too close to call, so the query is likely about neither.`;
  } else if (refused !== undefined) {
    why =
      `No category answers "${clip(query)}": it is nearest to ${refusedName} (${refused.slug}), whose curator marked ` +
      `${refused.entries.map((e) => JSON.stringify(e)).join(', ')} as outside its scope, so its sources would not serve it.`;
  } else {
    why =
      `No category matches "${clip(query)}" well enough` +
      (outcome.closest === null
        ? candidates.length === 0
          ? ': no category shares any words with it.'
          : ': no category shares enough of its words to answer.'
        : `: the closest is ${outcome.closest.slug} with score ${outcome.closest.score.toFixed(3)}, below the threshold ${outcome.threshold.toFixed(2)}.`);
  }
  return failure(`${why}${named}${candidates.length === 0 ? ' ' : ''}Otherwise rephrase with the topic's main words, or call list_categories. ${available}`, data);
}

/** Echo enough of the query for the agent to recognise it, never a 1,000-character wall. */
function clip(query: string): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}
