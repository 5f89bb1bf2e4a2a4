import { sign } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import semver from 'semver';
import { parseJson } from '../registry/parse-json.js';
import { SEMVER_PATTERN, SLUG_PATTERN, ZBASE32_KEY_PATTERN } from '../registry/schema.js';
import { canonicalBytes, sha256Hex } from './canonical.js';
import { changedCategory, type Change } from './changes.js';
import type { CuratorKey } from './keys.js';
import { verifySignature } from './signature.js';

/**
 * One signed version of a registry. `previous` is the SHA-256 of the whole previous entry
 * (signature included) in RFC 8785 form, so changing, dropping or reordering any entry breaks
 * every link after it; `signature` is the curator's Ed25519 signature over the entry's other
 * fields in RFC 8785 form. The first entry has `previous: null`.
 */
export interface HistoryEntry {
  readonly version: string;
  /** When it was signed, UTC, to the second: 2026-11-26T09:30:00Z. */
  readonly date: string;
  /** SHA-256 of the canonical registry this entry signs for. */
  readonly sha256: string;
  readonly previous: string | null;
  readonly changes: readonly Change[];
  /** The curator's word on where the changes came from ("from demand: 23 questions, 4 categories"), signed with the rest. */
  readonly note?: string;
  readonly publicKey: string;
  readonly signature: string;
}

export type UnsignedEntry = Omit<HistoryEntry, 'signature' | 'publicKey'>;

const HEX64 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const text = { type: 'string', minLength: 1 } as const;
const fields = { type: 'array', items: text, minItems: 1 } as const;
const slug = { type: 'string', pattern: SLUG_PATTERN } as const;
const key = { type: 'string', pattern: ZBASE32_KEY_PATTERN } as const;
const rank = { type: 'integer', minimum: 1, maximum: 3 } as const;
const addedOrRemoved = { enum: ['added', 'removed'] } as const;
const changed = { const: 'changed' } as const;
const shape = (properties: Record<string, unknown>) =>
  ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties }) as const;

/** A note is one line a reader sees beside the changes: no control characters, and short. */
export const MAX_NOTE_LENGTH = 200;
const NOTE_PATTERN = '^[^\\u0000-\\u001f\\u007f]+$';

/** Whether `text` may be a history entry's note. */
export const isNote = (text: string): boolean => text.length <= MAX_NOTE_LENGTH && new RegExp(NOTE_PATTERN, 'u').test(text);

const entryFields = {
  version: { type: 'string', pattern: SEMVER_PATTERN },
  date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$', format: 'date-time' },
  sha256: HEX64,
  previous: { anyOf: [HEX64, { type: 'null' }] },
  changes: {
    type: 'array',
    items: {
      anyOf: [
        shape({ change: addedOrRemoved, category: slug }),
        shape({ change: changed, category: slug, fields }),
        shape({ change: addedOrRemoved, category: slug, rank, url: text }),
        shape({ change: changed, category: slug, rank, url: text, fields }),
        shape({ change: addedOrRemoved, endorsement: key, name: text }),
        shape({ change: changed, endorsement: key, name: text, fields }),
        shape({ change: changed, curator: fields }),
      ],
    },
  },
  note: { type: 'string', minLength: 1, maxLength: MAX_NOTE_LENGTH, pattern: NOTE_PATTERN },
  publicKey: key,
  signature: { type: 'string', pattern: '^[A-Za-z0-9+/]{86}==$' },
} as const;
// Every field but the note is required: entries signed before notes existed stay valid.
const entrySchema = { ...shape(entryFields), required: Object.keys(entryFields).filter((f) => f !== 'note') };

const ajv = new Ajv2020({ strict: true });
formats.default(ajv, { formats: ['date-time'] });
const isEntry = ajv.compile<HistoryEntry>(entrySchema);

/** The SHA-256 that the next entry names as `previous`. */
export function entryHash (entry: HistoryEntry): string {
  return sha256Hex(canonicalBytes(entry));
}

function signedPart ({ signature: _signature, ...rest }: HistoryEntry): Omit<HistoryEntry, 'signature'> {
  return rest;
}

export function signEntry (entry: UnsignedEntry, key: CuratorKey): HistoryEntry {
  // Exactly the entry's fields: a signed entry passed in again must not carry its old signature along.
  const { version, date, sha256, previous, changes, note } = entry;
  const unsigned = { version, date, sha256, previous, changes, ...(note === undefined ? {} : { note }), publicKey: key.publicKey };
  return { ...unsigned, signature: sign(null, canonicalBytes(unsigned), key.privateKey).toString('base64') };
}

/** The file as `sign` writes it: a JSON array, oldest first, one entry per line (one line per version in a diff). */
export function formatHistory (entries: readonly HistoryEntry[]): string {
  return `[\n${entries.map((e) => canonicalBytes(e).toString('utf8')).join(',\n')}\n]\n`;
}

export type HistoryCheck =
  | { readonly ok: true; readonly entries: readonly HistoryEntry[] }
  | { readonly ok: false; readonly problem: string; readonly tooMany?: true };

/** How an entry is named in a message: its version, and its place (1 is the oldest). */
const label = (entry: { version?: unknown }, i: number): string =>
  typeof entry.version === 'string' && /^[0-9A-Za-z.+-]{1,80}$/.test(entry.version) ? `entry ${i + 1} (version ${entry.version})` : `entry ${i + 1}`;

/**
 * Parses a history file and checks every entry against `publicKey`: its shape, its signature,
 * its link to the one before, versions strictly increasing (semantic versioning) and dates
 * never going back. The first problem is reported, naming the entry; the content is never quoted.
 */
export function checkHistory (text: string, publicKey: string, maxEntries = Infinity): HistoryCheck {
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, problem: `${parsed.problem} (a truncated or hand-edited file?)` };
  if (!Array.isArray(parsed.value)) return { ok: false, problem: 'not a JSON array of entries' };
  const entries = parsed.value as unknown[];
  // Before any signature is verified: each costs an Ed25519 verification.
  if (entries.length > maxEntries) return { ok: false, problem: `more than ${maxEntries} entries`, tooMany: true };
  if (entries.length === 0) return { ok: false, problem: 'no entries: sign the registry to make its first' };
  let before: HistoryEntry | undefined;
  for (const [i, raw] of entries.entries()) {
    const where = label((raw ?? {}) as { version?: unknown }, i);
    if (!isEntry(raw)) return { ok: false, problem: `${where}: not a history entry (missing or malformed fields)` };
    if (raw.publicKey !== publicKey) return { ok: false, problem: `${where}: signed by another key (${raw.publicKey}, expected ${publicKey})` };
    if (!verifySignature(canonicalBytes(signedPart(raw)), raw.signature, publicKey)) {
      return { ok: false, problem: `${where}: its signature does not verify (the entry was altered after signing)` };
    }
    const expected = before === undefined ? null : entryHash(before);
    if (raw.previous !== expected) {
      return {
        ok: false,
        problem: before === undefined
          ? `${where}: the first entry names a predecessor (entries before it were removed?)`
          : `${where}: does not follow entry ${i} (its previous-entry hash differs: an entry was changed, removed or reordered)`,
      };
    }
    if (before !== undefined && !semver.gt(raw.version, before.version)) {
      return { ok: false, problem: `${where}: version does not increase from ${before.version}` };
    }
    if (before !== undefined && raw.date < before.date) return { ok: false, problem: `${where}: dated before entry ${i}` };
    before = raw;
  }
  // Byte for byte what sign writes: what is served is then exactly what was checked (a field
  // written twice would be read one way here and another way by a client's parser).
  if (text !== formatHistory(entries as HistoryEntry[])) return { ok: false, problem: 'not in the form sign writes (one RFC 8785 entry per line): edited after signing?' };
  return { ok: true, entries: entries as HistoryEntry[] };
}

/** The date each category last changed: the newest entry whose changes name it. */
export function lastChangedDates (entries: readonly HistoryEntry[]): ReadonlyMap<string, string> {
  const dates = new Map<string, string>();
  for (const entry of entries) {
    for (const c of entry.changes) {
      const slug = changedCategory(c);
      if (slug !== undefined) dates.set(slug, entry.date);
    }
  }
  return dates;
}
