import { basename } from 'node:path';
import { buildMatcher, type Matcher } from './matcher/matcher.js';
import { sha256Hex } from './provenance/canonical.js';
import { checkCuratorSigned } from './provenance/curator-signed.js';
import { bindCurator, curatorKeyProblems } from './provenance/curator.js';
import { entryHash, lastChangedDates, type HistoryEntry } from './provenance/history.js';
import { FileUnreadable, readIfPresent, signedFiles } from './provenance/signed-files.js';
import { signatureDocument, signatureDocumentBytes, signRegistry, type SignedRegistry } from './provenance/signature.js';
import { SigningError, type Signing } from './provenance/signing.js';
import { loadRegistry, RegistryError } from './registry/load.js';
import type { Registry } from './registry/types.js';
import type { RegistryRules } from './registry/validate.js';
import type { WordVectors } from './semantic/word-vectors.js';

/** Everything served from one registry file, built together and swapped together. */
export interface Catalog {
  readonly registry: Registry;
  readonly matcher: Matcher;
  readonly signed: SignedRegistry;
  /** GET /registry/signature: the curator's own file, or the document this server made. */
  readonly signatureBytes: Buffer;
  /** Oldest first; empty unless the curator signed the registry. */
  readonly history: readonly HistoryEntry[];
  /** GET /registry/history: the curator's history file, or an empty array. */
  readonly historyBytes: Buffer;
  /** Its SHA-256: the history's ETag. */
  readonly historySha256: string;
  /** Per category slug, the date of the newest history entry that changed it. */
  readonly lastChanged: ReadonlyMap<string, string>;
}

const NO_HISTORY = Buffer.from('[]\n');

async function read (file: string): Promise<Buffer | undefined> {
  try {
    return await readIfPresent(file);
  } catch (err) {
    throw new SigningError((err as FileUnreadable).message);
  }
}

/**
 * Loads and validates a registry, then either verifies the curator's signature and history
 * (curator mode) or binds it to the server's key and signs it (server and ephemeral modes), and
 * indexes it. Throws RegistryError or SigningError; nothing half-built ever comes out of it.
 */
export interface PrepareOptions {
  /** The catalog being served, which a reload must not roll back. */
  readonly served?: Catalog | undefined;
  readonly rules?: RegistryRules | undefined;
  /** The semantic stage's word vectors (none: declines name what words alone find). */
  readonly meaning?: WordVectors | undefined;
}

export async function prepareCatalog (
  file: string,
  signing: Signing,
  matchThreshold: number,
  { served, rules, meaning }: PrepareOptions = {}
): Promise<Catalog> {
  const loaded = await loadRegistry(file, rules);
  const files = signedFiles(file);
  const signatureBytes = await read(files.signature);
  if (signing.mode !== 'curator') {
    if (signatureBytes !== undefined) {
      throw new SigningError(
        `${basename(files.signature)} appeared: this server was started to sign the registry itself (${signing.mode} key); restart it to serve the curator's signature`
      );
    }
    const registry = bindCurator(loaded, signing.key.publicKey, file);
    const signed = signRegistry(registry, signing.key, signing.mode);
    return {
      registry,
      matcher: buildMatcher(registry, matchThreshold, { meaning }),
      signed,
      signatureBytes: signatureDocumentBytes(signatureDocument(signed)),
      history: [],
      historyBytes: NO_HISTORY,
      historySha256: sha256Hex(NO_HISTORY),
      lastChanged: new Map(),
    };
  }
  const check = checkCuratorSigned(
    loaded,
    { registryFile: file, signatureFile: files.signature, historyFile: files.history, signatureBytes, historyBytes: await read(files.history) },
    signing.publicKey,
    signing.keySource
  );
  if (!check.ok) throw new SigningError(check.problem);
  if (served !== undefined) refuseRollback(served.history, check.signed.history, basename(files.history));
  const problems = curatorKeyProblems(loaded, signing.publicKey);
  if (problems.length > 0) throw new RegistryError(file, problems);
  const { canonical, sha256, document, documentBytes, history, historyBytes } = check.signed;
  return {
    registry: loaded,
    matcher: buildMatcher(loaded, matchThreshold, { meaning }),
    signed: { canonical, sha256, signature: document.signature, publicKey: signing.publicKey, version: loaded.version, mode: 'curator' },
    signatureBytes: documentBytes,
    history,
    historyBytes,
    historySha256: sha256Hex(historyBytes),
    lastChanged: lastChangedDates(history),
  };
}

/**
 * A reload must extend the history being served (the same entries, then new ones), as a
 * sumdb client requires of a log: otherwise anyone who can write the files could roll the
 * server back to an older signed version, or to another signed branch, with a SIGHUP.
 */
function refuseRollback (served: readonly HistoryEntry[], next: readonly HistoryEntry[], name: string): void {
  const head = served[served.length - 1];
  if (head === undefined) return;
  const at = next[served.length - 1];
  if (at !== undefined && entryHash(at) === entryHash(head)) return;
  throw new SigningError(
    `${name}: reload refused: its history does not extend the one being served (version ${head.version}, ${served.length} entries): a rollback to an older version or a rewritten history; restart the server to serve it deliberately`
  );
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
  readonly #load: (served: Catalog) => Promise<Catalog>;

  /** `load` builds the next catalog; it is given the one being served, which a reload must not roll back. */
  constructor (initial: Catalog, load: (served: Catalog) => Promise<Catalog>) {
    this.#current = initial;
    this.#load = load;
  }

  current (): Catalog {
    return this.#current;
  }

  reload (): Promise<ReloadOutcome> {
    const next = this.#queue.then(async (): Promise<ReloadOutcome> => {
      try {
        const catalog = await this.#load(this.#current);
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

/** This registry's category names by slug, as served now: what the demand report and the page's public list name categories by. */
export function categoryNames (catalog: Catalog): ReadonlyMap<string, string> {
  return new Map(Object.entries(catalog.registry.categories).map(([slug, c]) => [slug, c.name]));
}
