import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The files `sign` keeps beside a registry, named after it (registry.json gives
 * registry.signature.json, registry.history.json and registry.signed.json).
 */
export interface SignedFiles {
  /** The curator's signature document, served byte for byte at GET /registry/signature. */
  readonly signature: string;
  /** Every signed version, oldest first, served at GET /registry/history. */
  readonly history: string;
  /** The canonical bytes last signed: what `sign` compares the next version with. */
  readonly signed: string;
}

export function signedFiles (registryFile: string): SignedFiles {
  const stem = basename(registryFile).replace(/\.json$/i, '');
  const beside = (suffix: string) => join(dirname(registryFile), `${stem}.${suffix}.json`);
  return { signature: beside('signature'), history: beside('history'), signed: beside('signed') };
}

/** A file's bytes, or undefined when it does not exist; any other failure names its code. */
export async function readIfPresent (file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new FileUnreadable(file, code ?? 'read error');
  }
}

export class FileUnreadable extends Error {
  constructor (file: string, code: string) {
    super(`${basename(file)}: cannot read the file (${code})`);
    this.name = 'FileUnreadable';
  }
}
