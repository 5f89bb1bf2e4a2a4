import { buildMatcher, type Matcher } from './matcher/matcher.js';
import { bindCurator } from './provenance/curator.js';
import type { CuratorKey } from './provenance/keys.js';
import { signRegistry, type SignedRegistry } from './provenance/signature.js';
import { loadRegistry } from './registry/load.js';
import type { Registry } from './registry/types.js';

/** Everything served from one registry file, built together and swapped together. */
export interface Catalog {
  readonly registry: Registry;
  readonly matcher: Matcher;
  readonly signed: SignedRegistry;
}

/**
 * Loads, validates, binds to the curator key, signs and indexes a registry. Throws
 * RegistryError; nothing half-built ever comes out of it.
 */
export async function prepareCatalog(file: string, key: CuratorKey, matchThreshold: number): Promise<Catalog> {
  const registry = bindCurator(await loadRegistry(file), key.publicKey, file);
  return { registry, matcher: buildMatcher(registry, matchThreshold), signed: signRegistry(registry, key) };
}
