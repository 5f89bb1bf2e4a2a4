import { RegistryError } from '../registry/load.js';
import type { Registry } from '../registry/types.js';
import { decodePublicKey } from './keys.js';

/** Values that mean "no key chosen yet": the server's own key is taken. */
const PLACEHOLDERS = new Set(['', 'placeholder', 'todo', 'tbd', 'changeme', 'none']);

export function isPlaceholder(pubkey: string): boolean {
  return PLACEHOLDERS.has(pubkey.trim().toLowerCase()) || /^<.*>$/.test(pubkey.trim());
}

/**
 * Puts the server's public key in the registry's curator entry. The server must not serve a
 * registry under someone else's name, nor let the curator endorse itself.
 */
export function bindCurator(registry: Registry, publicKey: string, file: string): Registry {
  const named = registry.curator.pubkey;
  const problems: string[] = [];
  if (!isPlaceholder(named)) {
    if (decodePublicKey(named) === undefined) {
      problems.push('curator.pubkey: must be a z-base-32 Ed25519 public key (52 characters), or empty to take the server\'s key');
    } else if (named !== publicKey) {
      problems.push(
        `curator.pubkey: names ${named}, but this server signs with ${publicKey}; configure that curator's secret key (CURATOR_SECRET_KEY or CURATOR_KEY_FILE) or empty curator.pubkey`,
      );
    }
  }
  registry.endorsements.forEach((e, i) => {
    if (decodePublicKey(e.pubkey) === undefined) problems.push(`endorsements.${i}.pubkey: must be a z-base-32 Ed25519 public key`);
    else if (e.pubkey === publicKey) problems.push(`endorsements.${i}.pubkey: a curator cannot endorse itself`);
  });
  if (problems.length > 0) throw new RegistryError(file, problems);
  return Object.freeze({ ...registry, curator: Object.freeze({ ...registry.curator, pubkey: publicKey }) });
}
