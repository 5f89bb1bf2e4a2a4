import { changedCategory, describeChange } from '../../provenance/changes.js';
import type { HistoryEntry } from '../../provenance/history.js';
import { SLUG_PATTERN } from '../../registry/schema.js';
import { READ_ONLY, answer, errorSchema, failure, schema, type Catalog, type Tool } from './tool.js';

export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 100;

/** A day (2026-11-26) or a moment in UTC (2026-11-26T09:30:00Z), as the history writes dates. */
const SINCE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}Z)?$';

const change = {
  type: 'object',
  required: ['change'],
  properties: {
    change: { enum: ['added', 'removed', 'changed'] },
    category: schema.string,
    rank: { type: 'integer' },
    url: schema.string,
    endorsement: schema.string,
    name: schema.string,
    fields: schema.strings,
    curator: schema.strings,
  },
  additionalProperties: false,
} as const;

/** A real calendar day or moment: the pattern alone lets 2026-02-31 through. */
function validSince (since: string): boolean {
  const time = since.length === 10 ? `${since}T00:00:00Z` : since;
  const parsed = new Date(time);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().replace('.000Z', 'Z') === time;
}

function entryView (e: HistoryEntry, category: string | undefined) {
  const changes = category === undefined ? e.changes : e.changes.filter((c) => changedCategory(c) === category);
  const note = e.note === undefined ? {} : { note: e.note };
  return { version: e.version, date: e.date, sha256: e.sha256, previous: e.previous, changes, summary: changes.map(describeChange), ...note };
}

/** A history answer: who signed, the version, and the matching entries, newest first. */
const historySchema = schema.object({
  signedBy: { enum: ['curator', 'server', 'ephemeral'] },
  registryVersion: schema.string,
  total: { type: 'integer', minimum: 0 },
  entries: {
    type: 'array',
    items: schema.object(
      {
        version: schema.string,
        date: schema.string,
        sha256: schema.string,
        previous: { anyOf: [schema.string, { type: 'null' }] },
        changes: { type: 'array', items: change },
        summary: schema.strings,
        // The curator's note on where the changes came from, when the entry has one.
        note: schema.string,
      },
      ['version', 'date', 'sha256', 'previous', 'changes', 'summary']
    ),
  },
});

export const getHistory: Tool = {
  definition: {
    name: 'get_history',
    title: 'Get registry history',
    description:
      'List the signed versions of this registry, newest first: version, date, SHA-256, the hash of the previous entry and what changed ' +
      '(categories and sources added, removed or changed, by slug and rank). Use it to judge how fresh and how stable a category is. ' +
      'Optional: since (a date, 2026-01-31, or a UTC time, 2026-01-31T12:00:00Z: entries from then on), category (a slug: only the versions ' +
      `that changed it), limit (1 to ${MAX_HISTORY_LIMIT}, default ${DEFAULT_HISTORY_LIMIT}). Only a curator-signed registry has a history.`,
    inputSchema: {
      type: 'object',
      properties: {
        since: { type: 'string', pattern: SINCE_PATTERN, description: 'Only entries dated on or after this date (YYYY-MM-DD) or UTC time (YYYY-MM-DDThh:mm:ssZ).' },
        category: { type: 'string', pattern: SLUG_PATTERN, maxLength: 100, description: 'A category slug (see list_categories): only the versions that changed it.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_LIMIT, description: `At most this many entries, newest first (default ${DEFAULT_HISTORY_LIMIT}).` },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      anyOf: [historySchema, errorSchema(['since-not-a-date', 'unknown-category'])],
    },
    annotations: READ_ONLY,
  },

  run (args, catalog: Catalog) {
    const since = args.since as string | undefined;
    const category = args.category as string | undefined;
    const limit = (args.limit as number | undefined) ?? DEFAULT_HISTORY_LIMIT;
    const { history, registry, signed } = catalog;
    if (since !== undefined && !validSince(since)) {
      return failure(`"since" is not a real date: ${since}. Give a date such as 2026-01-31 or a UTC time such as 2026-01-31T12:00:00Z.`, 'since-not-a-date');
    }
    const touches = (e: HistoryEntry) => e.changes.some((c) => changedCategory(c) === category);
    if (category !== undefined && !Object.hasOwn(registry.categories, category) && !history.some(touches)) {
      return failure(`No category "${category}" in this registry or its history. Call list_categories for the slugs.`, 'unknown-category');
    }
    // Dates are written the same way, to the second, so they compare as text; a day means its start.
    const from = since === undefined ? undefined : since.length === 10 ? `${since}T00:00:00Z` : since;
    const matching = history
      .filter((e) => from === undefined || e.date >= from)
      .filter((e) => category === undefined || touches(e))
      .reverse();
    const entries = matching.slice(0, limit).map((e) => entryView(e, category));
    const lines =
      history.length === 0
        ? [`This registry (version ${registry.version}) has no signed history: it is signed by ${signed.mode === 'server' ? 'this server' : 'an ephemeral development key'}, not by its curator with the sign command.`]
        : [
            `Signed history of registry ${registry.version}: ${matching.length} of ${history.length} entries match${matching.length > entries.length ? `, the newest ${entries.length} shown` : ''}, newest first.`,
            ...entries.flatMap((e) => [
              '',
              `${e.version}  ${e.date}  sha256 ${e.sha256}`,
              ...('note' in e ? [`  note: ${e.note}`] : []),
              ...(e.summary.length > 0 ? e.summary.map((s) => `  ${s}`) : ['  (no changes but the version)']),
            ]),
          ];
    return answer(lines.join('\n'), { signedBy: signed.mode, registryVersion: registry.version, total: matching.length, entries });
  },
};
