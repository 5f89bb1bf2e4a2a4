import type { Asked } from '../../demand/asked.js';
import { DEFAULT_THRESHOLD, RULES } from '../../matcher/matcher.js';
import { BoundedMemo } from '../../util/bounded-memo.js';
import { findSources, MAX_QUERY_LENGTH } from '../../sources/find-sources.js';
import { SOURCE_TYPES } from '../../registry/types.js';
import { deepFreeze } from '../../util/deep-freeze.js';
import { READ_ONLY, answer, errorSchema, failure, schema, type Catalog, type Tool, type ToolResult } from './tool.js';

export { lastChanged, MAX_QUERY_LENGTH } from '../../sources/find-sources.js';

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
export const DECLINE_REASONS = ['empty-query', 'too-long', 'below-threshold', 'too-vague', 'too-close'] as const;

export const declinedDetail = schema.object({
  reason: { enum: DECLINE_REASONS },
  threshold: { type: 'number' },
  candidates: {
    type: 'array',
    maxItems: RULES.declineCandidates,
    // similarity: how near in meaning (0 to 1), where the server's semantic stage runs.
    items: schema.object(
      { slug: schema.string, name: schema.string, description: schema.string, score: { type: 'number' }, similarity: { type: 'number' } },
      ['slug', 'name', 'description', 'score']
    ),
  },
  availableSlugs: schema.strings,
  // Present when the query was nearest to a category whose curator marked it as outside its scope.
  outOfScope: schema.object({ slug: schema.string, name: schema.string, entries: schema.strings }),
}, ['reason', 'threshold', 'candidates', 'availableSlugs']);

const declined = errorSchema(DECLINE_REASONS, { declined: declinedDetail });

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
          description:
            `Minimum match score from 0 to 1; higher is stricter. Omitted: the server's threshold (${DEFAULT_THRESHOLD} unless its operator set another). ` +
            `A question holding ${RULES.broadEvidenceWords} or more distinct words of the leading category needs less: the threshold less ${RULES.broadEvidenceDiscount}, ` +
            `and ${RULES.broadEvidencePerWord} less for each further word, at most ${RULES.broadEvidenceMaxDiscount} less in all ` +
            `(so 1 still answers such a question scoring ${(1 - RULES.broadEvidenceMaxDiscount).toFixed(2)} or more); a decline's structuredContent.declined.threshold is the one that applied.`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      // An answer, or (in an error result) the error and the decline with the candidates it names.
      anyOf: [answered, declined],
    },
    annotations: READ_ONLY,
  },

  run (args, catalog, context) {
    const query = args.query as string;
    const threshold = args.threshold as number | undefined;
    // Agents ask the same things again and again: answers are remembered per catalog (a reload
    // starts afresh), keyed by the query as sent, since a no-match answer quotes it, and by who
    // asked (see ToolContext.asker). Bounded.
    const asker = context?.asker ?? '';
    const { result, asked } = answersFor(catalog).get(`${asker}\u0000${threshold ?? ''}\u0000${query}`, () => {
      const found = findSources(catalog, query, threshold, asker);
      return { result: deepFreeze(found.kind === 'answer' ? answer(found.text, found.data) : failure(found.text, found.reason, found.data)), asked: found.asked };
    });
    // Per request, remembered or not: demand counts requests, not distinct answers. Only at the
    // server's threshold: a caller's own (threshold 1 declines nearly everything) would count covered
    // topics as uncovered.
    if (threshold === undefined) context?.asked?.(asked);
    return result;
  },
};

export const MAX_REMEMBERED_ANSWERS = 2000;
/** An answer as remembered: the result, and what its query amounted to for the demand signal. */
export interface RememberedAnswer {
  readonly result: ToolResult;
  readonly asked: Asked;
}

const answers = new WeakMap<Catalog, BoundedMemo<string, RememberedAnswer>>();

/** The answers remembered for one catalog; a reload brings a new catalog and starts afresh. */
export function answersFor (catalog: Catalog): BoundedMemo<string, RememberedAnswer> {
  let memo = answers.get(catalog);
  if (memo === undefined) {
    memo = new BoundedMemo(MAX_REMEMBERED_ANSWERS);
    answers.set(catalog, memo);
  }
  return memo;
}
