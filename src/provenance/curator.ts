import { RegistryError } from '../registry/load.js';
import { RULES } from '../registry/messages.js';
import { endorsementPath } from '../registry/paths.js';
import type { Registry } from '../registry/types.js';
import { decodePublicKey } from './keys.js';

/** Values that mean "no key chosen yet": the server's own key is taken. */
const PLACEHOLDERS = new Set(['', 'placeholder', 'todo', 'tbd', 'changeme', 'none']);

export function isPlaceholder (pubkey: string): boolean {
  return PLACEHOLDERS.has(pubkey.trim().toLowerCase()) || /^<.*>$/.test(pubkey.trim());
}

/**
 * What stops a registry from being served under a curator key, beyond its schema: a curator
 * key that is not one, one that is not the server's (when `serverKey` is known), an endorsement
 * key that is not one, and a curator endorsing itself. `check` runs it without a server key.
 */
export function curatorKeyProblems (registry: Registry, serverKey?: string): string[] {
  const named = registry.curator.pubkey;
  const problems: string[] = [];
  let curator = serverKey;
  if (!isPlaceholder(named)) {
    if (decodePublicKey(named) === undefined) {
      problems.push(`curator.pubkey: ${RULES.publicKey}, or empty to take the server's key`);
    } else if (serverKey !== undefined && named !== serverKey) {
      problems.push(
        `curator.pubkey: names ${named}, but this server signs with ${serverKey}; have that curator sign the registry (npx three-good-sources sign) and serve it with CURATOR_PUBKEY, configure that curator's secret key (CURATOR_SECRET_KEY or CURATOR_KEY_FILE), or empty curator.pubkey`
      );
    } else {
      curator = named;
    }
  }
  registry.endorsements.forEach((e, i) => {
    if (decodePublicKey(e.pubkey) === undefined) problems.push(`${endorsementPath(i, 'pubkey')}: ${RULES.publicKey}`);
    else if (e.pubkey === curator) problems.push(`${endorsementPath(i, 'pubkey')}: a curator cannot endorse itself`);
  });
  return problems;
}

/**
 * Puts the server's public key in the registry's curator entry. The server must not serve a
 * registry under someone else's name, nor let the curator endorse itself.
 */
export function bindCurator (registry: Registry, publicKey: string, file: string): Registry {
  const problems = curatorKeyProblems(registry, publicKey);
  if (problems.length > 0) throw new RegistryError(file, problems);
  return Object.freeze({ ...registry, curator: Object.freeze({ ...registry.curator, pubkey: publicKey }) });
}
