import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { entryHash, type HistoryEntry } from '../provenance/history.js';
import { writeFileAtomic } from '../util/write-atomic.js';

/** What `verify --known` remembers per curator key: how long the history was and its newest entry. */
interface Seen {
  readonly entries: number;
  readonly head: string;
  readonly version: string;
  readonly checked: string;
}

export class KnownFailure extends Error {}

async function readKnown (file: string): Promise<Record<string, Seen>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new KnownFailure(`cannot read the --known file ${file} (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const valid = (s: unknown): s is Seen => {
    const v = s as Partial<Seen> | null;
    return (
      typeof v === 'object' && v !== null && Number.isInteger(v.entries) && (v.entries as number) >= 1 &&
      typeof v.head === 'string' && /^[0-9a-f]{64}$/.test(v.head) && typeof v.version === 'string'
    );
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !Object.values(data).every(valid)) {
    throw new KnownFailure(`the --known file ${file} is not one verify wrote (a truncated or hand-edited file?); nothing was compared`);
  }
  return data as Record<string, Seen>;
}

/**
 * Checks that `history` extends what was seen before under this key, then remembers its head.
 * A shorter history, or one whose entry at the last seen place is another, is a rewrite or a
 * replay: the old head is kept so that the next run fails too.
 */
export async function rememberHead (file: string, pubkey: string, history: readonly HistoryEntry[]): Promise<string> {
  const known = await readKnown(file);
  const seen = known[pubkey];
  const head = history[history.length - 1]!;
  if (seen !== undefined) {
    if (history.length < seen.entries) {
      const replay = semver.valid(seen.version) !== null && semver.lt(head.version, seen.version);
      throw new KnownFailure(
        replay
          ? `replayed older version: served ${head.version} with ${history.length} history entries, but version ${seen.version} with ${seen.entries} was seen before (${file})`
          : `rewritten history: it has ${history.length} entries, fewer than the ${seen.entries} seen before (${file})`
      );
    }
    const atSeen = history[seen.entries - 1]!;
    if (entryHash(atSeen) !== seen.head) {
      throw new KnownFailure(`rewritten history: entry ${seen.entries} (version ${atSeen.version}) is not the entry ${seen.version} seen before (${file})`);
    }
  }
  const next: Seen = { entries: history.length, head: entryHash(head), version: head.version, checked: new Date().toISOString() };
  try {
    await writeFileAtomic(file, `${JSON.stringify({ ...known, [pubkey]: next }, null, 2)}\n`);
  } catch (err) {
    throw new KnownFailure(`cannot write the --known file ${file} (${(err as NodeJS.ErrnoException).code ?? 'write error'})`);
  }
  if (seen === undefined) return `first check: remembered ${head.version} in ${file}`;
  return history.length === seen.entries ? `unchanged since last check (${file})` : `extends the ${seen.version} seen before by ${history.length - seen.entries} (${file})`;
}
