import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { generateKey } from '../provenance/keys.js';
import { takeOption, type CliIo } from './io.js';

export const KEYGEN_USAGE = 'keygen [--out FILE]   write a new curator secret key (mode 0600, default curator.key) and print its public key';

/** Writes a new Ed25519 seed as 64 hex characters, readable by its owner only, and never over an existing file. */
export async function keygen (args: readonly string[], io: CliIo): Promise<number> {
  const { value, rest } = takeOption(args, 'out');
  if (rest.length > 0) {
    io.err(`keygen: unexpected argument ${rest[0]}; usage: ${KEYGEN_USAGE}`);
    return 1;
  }
  const file = resolve(value ?? 'curator.key');
  const { key, seed } = generateKey();
  try {
    await writeFile(file, `${seed.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    io.err(code === 'EEXIST' ? `keygen: ${file} already exists; not overwriting a key` : `keygen: cannot write ${file} (${code ?? 'error'})`);
    return 1;
  }
  io.out(`public key: ${key.publicKey}`);
  io.out(`secret key written to ${file} (mode 0600): keep it off the server`);
  io.out(`next: put "pubkey": "${key.publicKey}" in the registry's curator, sign it with npx three-good-sources sign registry.json --key ${file}, and run the server with CURATOR_PUBKEY=${key.publicKey}`);
  return 0;
}
