import { basename } from 'node:path';
import { StartupError } from '../errors.js';
import { loadRegistry } from '../registry/load.js';
import type { RegistryRules } from '../registry/validate.js';
import { isPlaceholder } from './curator.js';
import { decodePublicKey, generateKey, keyFromSeed, type CuratorKey } from './keys.js';
import { readIfPresent, signedFiles } from './signed-files.js';

/**
 * How the served registry is signed, chosen once at start-up and kept until the process ends
 * (a reload cannot switch a server from verifying the curator's signature to signing itself).
 */
export type Signing =
  | { readonly mode: 'curator'; readonly publicKey: string; readonly keySource: string }
  | { readonly mode: 'server' | 'ephemeral'; readonly key: CuratorKey };

/** A signature, history or key that stops start-up (and makes a reload keep the old registry). */
export class SigningError extends StartupError {
  constructor (message: string) {
    super('THREEGS_SIGNATURE', message);
    this.name = 'SigningError';
  }
}

export interface SigningChoice {
  readonly registryFile: string;
  /** CURATOR_PUBKEY, already checked to be a key. */
  readonly pubkey?: string | undefined;
  /** CURATOR_SECRET_KEY or CURATOR_KEY_FILE, already checked. */
  readonly seed?: Buffer | undefined;
  readonly rules?: RegistryRules | undefined;
}

/**
 * CURATOR_PUBKEY, or a curator signature beside the registry, means the curator signed it
 * offline: the server verifies with CURATOR_PUBKEY or the registry's own curator.pubkey and
 * holds no secret. Otherwise a configured secret key signs here (server), or a key made now
 * does (ephemeral, for development). A signature file with a secret configured is refused:
 * the operator must say which of the two is meant.
 */
export async function chooseSigning ({ registryFile, pubkey, seed, rules }: SigningChoice): Promise<Signing> {
  if (pubkey !== undefined) return { mode: 'curator', publicKey: pubkey, keySource: 'CURATOR_PUBKEY' };
  const signatureFile = signedFiles(registryFile).signature;
  const signature = await readIfPresent(signatureFile).catch(() => undefined);
  if (signature === undefined) {
    const history = signedFiles(registryFile).history;
    if (seed === undefined && (await readIfPresent(history).catch(() => undefined)) !== undefined) {
      throw new SigningError(`${basename(history)} is present but ${basename(signatureFile)} is missing: restore it, or sign the registry again`);
    }
    return seed === undefined ? { mode: 'ephemeral', key: generateKey(true).key } : { mode: 'server', key: keyFromSeed(seed) };
  }
  const name = basename(signatureFile);
  if (seed !== undefined) {
    throw new SigningError(
      `${name} is present: the curator signed this registry, so the server only verifies it and needs no secret; unset CURATOR_SECRET_KEY and CURATOR_KEY_FILE (or remove ${name} to sign here)`
    );
  }
  const named = (await loadRegistry(registryFile, rules)).curator.pubkey;
  if (isPlaceholder(named) || decodePublicKey(named) === undefined) {
    throw new SigningError(`${name} is present but there is no key to check it with: set CURATOR_PUBKEY or the registry's curator.pubkey to the curator's public key`);
  }
  return { mode: 'curator', publicKey: named, keySource: "the registry's own curator.pubkey" };
}

/** The public key the served registry is signed with. */
export function signingKey (signing: Signing): string {
  return signing.mode === 'curator' ? signing.publicKey : signing.key.publicKey;
}
