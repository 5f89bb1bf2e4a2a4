import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/write-atomic.js';
import type { PeerDocuments } from './verify.js';

/** What is kept per peer: its three documents as fetched, and when. */
export interface CachedCopy extends PeerDocuments {
  readonly fetchedAt: number;
}

/**
 * The documents are kept as base64 of the bytes fetched, never as decoded text: what is verified
 * again at start-up is exactly what was verified when fetched (a lossy decode would turn bytes that
 * are not UTF-8 into other bytes). Files of an earlier format are ignored: the peer is fetched again.
 */
interface CacheFile {
  readonly format: typeof FORMAT;
  readonly url: string;
  readonly fetchedAt: number;
  readonly registry: string;
  readonly signature: string;
  readonly history: string;
}

const FORMAT = 2;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** One file per peer, named by its key (z-base-32: safe in any file name). */
const fileOf = (dir: string, pubkey: string) => join(dir, `${pubkey}.json`);

/** Written whole or not at all (write, then rename). */
export async function saveCopy (dir: string, pubkey: string, url: string, copy: CachedCopy): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file: CacheFile = {
    format: FORMAT,
    url,
    fetchedAt: copy.fetchedAt,
    registry: copy.registry.toString('base64'),
    signature: copy.signature.toString('base64'),
    history: copy.history.toString('base64'),
  };
  await writeFileAtomic(fileOf(dir, pubkey), JSON.stringify(file));
}

/**
 * The copy kept for a peer at this URL; undefined when there is none to read (no file, or one
 * kept for another URL); `{ problem }` when the file is there but unreadable (truncated, not JSON,
 * not one we wrote), which the caller logs. The caller verifies a copy again as if just fetched.
 */
export async function loadCopy (dir: string, pubkey: string, url: string): Promise<CachedCopy | { readonly problem: string } | undefined> {
  let text: string;
  try {
    text = await readFile(fileOf(dir, pubkey), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? undefined : { problem: `cannot read its file (${code ?? 'read error'})` };
  }
  let data: Partial<CacheFile>;
  try {
    data = JSON.parse(text) as Partial<CacheFile>;
  } catch {
    return { problem: 'its file is not JSON (truncated?); the peer is fetched again' };
  }
  if (data === null || typeof data !== 'object') return { problem: 'its file is not one this server wrote; the peer is fetched again' };
  if (data.url !== url) return undefined;
  const texts = [data.registry, data.signature, data.history];
  if (data.format !== FORMAT || typeof data.fetchedAt !== 'number' || !Number.isFinite(data.fetchedAt) || texts.some((t) => typeof t !== 'string' || !BASE64.test(t))) {
    return { problem: 'its file is not one this server wrote (an older format, or edited); the peer is fetched again' };
  }
  return {
    fetchedAt: data.fetchedAt,
    registry: Buffer.from(data.registry!, 'base64'),
    signature: Buffer.from(data.signature!, 'base64'),
    history: Buffer.from(data.history!, 'base64'),
  };
}
