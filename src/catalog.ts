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

export type ReloadOutcome =
  | { readonly ok: true; readonly version: string; readonly sha256: string; readonly categories: number }
  | { readonly ok: false; readonly error: string };

/**
 * Holds the catalog being served and swaps it whole. A reload builds and checks the new
 * catalog completely before the swap; a request that already read the old one finishes on it;
 * a failed reload leaves the old one in place. Reloads run one at a time.
 */
export class CatalogHolder {
  #current: Catalog;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #load: () => Promise<Catalog>;

  constructor(initial: Catalog, load: () => Promise<Catalog>) {
    this.#current = initial;
    this.#load = load;
  }

  current(): Catalog {
    return this.#current;
  }

  reload(): Promise<ReloadOutcome> {
    const next = this.#queue.then(async (): Promise<ReloadOutcome> => {
      try {
        const catalog = await this.#load();
        this.#current = catalog;
        const { registry, signed } = catalog;
        return { ok: true, version: registry.version, sha256: signed.sha256, categories: Object.keys(registry.categories).length };
      } catch (err) {
        return { ok: false, error: (err as Error).message };
      }
    });
    this.#queue = next;
    return next;
  }
}
