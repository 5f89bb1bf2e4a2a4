import { Ajv2020 } from 'ajv/dist/2020.js';
import type { DemandReport } from './report.js';

const count = { type: 'integer', minimum: 0 } as const;
const text = { type: 'string' } as const;
const counted = { type: 'object', required: ['text', 'clients', 'asks'], properties: { text, clients: count, asks: count, first: text, last: text } } as const;
const counts = { type: 'array', items: counted } as const;
const tally = { type: 'object', additionalProperties: count } as const;

/**
 * What a demand report must hold for `demand` to print it: every field formatReport reads, of the
 * type it reads it as. A server's reply is another machine's text: one missing list must be a
 * clear message, not a TypeError. Fields beyond these (a newer server's) are allowed.
 */
export const DEMAND_REPORT_SCHEMA = {
  type: 'object',
  required: ['recording', 'store', 'window', 'minClients', 'totals', 'uncovered', 'nearMisses', 'answered', 'scopeRefusals'],
  properties: {
    recording: { type: 'boolean' },
    store: text,
    window: { type: 'object', required: ['days', 'from', 'to'], properties: { days: count, from: text, to: text } },
    minClients: count,
    totals: { type: 'object', required: ['requests', 'byOutcome', 'answeredByCategory'], properties: { requests: count, byOutcome: tally, answeredByCategory: tally } },
    uncovered: { type: 'array', items: { ...counted, required: [...counted.required, 'related'], properties: { ...counted.properties, related: counts } } },
    nearMisses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['slug', 'name', 'declined', 'unknownWords', 'queries'],
        properties: { slug: text, name: text, declined: count, unknownWords: counts, queries: counts },
      },
    },
    answered: {
      type: 'array',
      items: { type: 'object', required: ['slug', 'name', 'answered', 'queries'], properties: { slug: text, name: text, answered: count, queries: counts } },
    },
    scopeRefusals: { type: 'array', items: { ...counted, required: [...counted.required, 'slug', 'name'], properties: { ...counted.properties, slug: text, name: text } } },
  },
} as const;

const validate = new Ajv2020({ strict: true, allErrors: false }).compile<DemandReport>(DEMAND_REPORT_SCHEMA);

/** Undefined when `value` is a report formatReport can print; else where it is not (`/totals/requests must be integer`). */
export function demandReportProblem (value: unknown): string | undefined {
  if (validate(value)) return undefined;
  const [first] = validate.errors ?? [];
  return first === undefined ? 'not a demand report' : `${first.instancePath || 'the reply'} ${first.message ?? 'is not as a demand report holds it'}`;
}
