import { readFile } from 'node:fs/promises';
import { keyFromSeed, parseSeed, type CuratorKey } from '../provenance/keys.js';

export type KeyFileRead = { readonly ok: true; readonly key: CuratorKey } | { readonly ok: false; readonly problem: string };

/** A secret key file as keygen writes it; the problem names the file, never its content. */
export async function readKeyFile (file: string): Promise<KeyFileRead> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (err) {
    return { ok: false, problem: `cannot read the key file ${file} (${(err as NodeJS.ErrnoException).code ?? 'read error'})` };
  }
  const seed = parseSeed(content.trim());
  if (seed === undefined) return { ok: false, problem: `${file} is not a curator key: keygen writes 64 hexadecimal characters (the Ed25519 seed)` };
  return { ok: true, key: keyFromSeed(seed) };
}
