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
export async function saveCopy(dir: string, pubkey: string, url: string, copy: CachedCopy): Promise<void> {
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
 * The copy kept for a peer at this URL, or undefined (none, unreadable, another URL, or not one we
 * wrote). The caller verifies it again as if it had just been fetched.
 */
export async function loadCopy(dir: string, pubkey: string, url: string): Promise<CachedCopy | undefined> {
  let data: Partial<CacheFile>;
  try {
    data = JSON.parse(await readFile(fileOf(dir, pubkey), 'utf8')) as Partial<CacheFile>;
  } catch {
    return undefined;
  }
  const texts = [data.registry, data.signature, data.history];
  if (data.format !== FORMAT || data.url !== url || typeof data.fetchedAt !== 'number' || !Number.isFinite(data.fetchedAt)) return undefined;
  if (texts.some((t) => typeof t !== 'string' || !BASE64.test(t))) return undefined;
  return {
    fetchedAt: data.fetchedAt,
    registry: Buffer.from(data.registry!, 'base64'),
    signature: Buffer.from(data.signature!, 'base64'),
    history: Buffer.from(data.history!, 'base64'),
  };
}
