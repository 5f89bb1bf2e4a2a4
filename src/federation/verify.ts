import canonicalize from 'canonicalize';
import semver from 'semver';
import { sha256Hex } from '../provenance/canonical.js';
import { checkHistory, entryHash, type HistoryEntry } from '../provenance/history.js';
import { parseSignatureDocument, verifySignature, type SigningMode } from '../provenance/signature.js';
import type { Registry } from '../registry/types.js';
import { validateRegistry } from '../registry/validate.js';
import { jsonDepthWithin } from '../util/json-depth.js';
import { decodeUtf8 } from '../util/utf8.js';
import { inLog, peerRegistryForDisplay } from './peer-text.js';
import { duplicateKeys } from '../registry/parse-json.js';

/** The three documents a peer publishes, as fetched (or as kept on disk). */
export interface PeerDocuments {
  readonly registry: Buffer;
  readonly signature: Buffer;
  readonly history: Buffer;
}

export interface VerifiedPeer {
  readonly registry: Registry;
  readonly sha256: string;
  readonly version: string;
  readonly signedBy: SigningMode;
  /** Oldest first; empty for a peer that signs its registry itself. */
  readonly history: readonly HistoryEntry[];
}

/** The copy in use for a peer, which a new copy must move forward from. */
export interface InUse {
  readonly version: string;
  /** How many history entries it had, and the hash of its newest (none for a self-signed peer). */
  readonly historyLength: number;
  readonly head: string | undefined;
}

export class PeerRefused extends Error {}

/**
 * Bounds on what one peer may make us hold and index: far above a real registry of vetted sources
 * (the shipped one has 10 categories, at most 85 keywords and 45 example questions each, and its
 * deepest JSON is 5 levels).
 */
export const PEER_LIMITS = {
  categories: 1000,
  historyEntries: 1000,
  textLength: 4000,
  depth: 16,
  tags: 50,
  keywords: 500,
  queryPatterns: 500,
  notAbout: 200,
  /**
   * Tags, keywords, example questions and not-about entries in all: the main thread parses the
   * verified copy, and 5 MB of a million short strings took 65-80 ms to parse on a busy machine.
   */
  listStrings: 200_000,
} as const;

/** The longest string anywhere in a parsed JSON value (its depth already bounded). */
function longestText (value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  let longest = 0;
  for (const [k, v] of Object.entries(value)) longest = Math.max(longest, k.length, longestText(v));
  return longest;
}

/** A list field of a category longer than its limit, named for the log line; undefined when none is. */
function overfullList (categories: object): string | undefined {
  let total = 0;
  for (const [slug, c] of Object.entries(categories)) {
    if (c === null || typeof c !== 'object') continue;
    for (const field of ['tags', 'keywords', 'queryPatterns', 'notAbout'] as const) {
      const list = (c as Record<string, unknown>)[field];
      if (!Array.isArray(list)) continue;
      if (list.length > PEER_LIMITS[field]) return `more than ${PEER_LIMITS[field]} ${field} in category ${inLog(slug)}`;
      total += list.length;
    }
  }
  return total > PEER_LIMITS.listStrings ? `more than ${PEER_LIMITS.listStrings} tags, keywords, example questions and not-about entries in all` : undefined;
}

/**
 * Accepts a peer's registry only if it is signed by exactly the endorsed key, its digest is the
 * one signed, it names that key as its curator, it passes our registry rules (fields we do not
 * know are dropped: a peer may run a newer version), and, when its curator signed it, its
 * history verifies and ends at this registry; and, given the copy in use, only if it moves
 * forward from it. Every refusal says why in one line.
 *
 * The checks run cheapest first, so that a hostile copy costs as little as its first flaw:
 * UTF-8, the signature over the exact bytes, the version against the one in use (from the
 * signature document, confirmed against the registry at the end), the history's link to the one
 * in use, then the depth, parse, canonical form, limits and rules, and the history's signatures.
 */
export function verifyPeer (docs: PeerDocuments, endorsedKey: string, allowLoopbackHttp: boolean, inUse?: InUse): VerifiedPeer {
  // JSON-RPC and JSON text is UTF-8: bytes that are not are refused before anything reads them as text.
  const texts = { registry: decodeUtf8(docs.registry), signature: decodeUtf8(docs.signature), history: decodeUtf8(docs.history) };
  for (const [name, text] of Object.entries(texts)) if (text === undefined) throw new PeerRefused(`its ${name} document is not valid UTF-8`);
  const parsed = parseSignatureDocument(docs.signature);
  if (!parsed.ok) throw new PeerRefused(`signature document: ${parsed.problem}`);
  const doc = parsed.doc;
  if (doc.publicKey !== endorsedKey) throw new PeerRefused(`signed by another key than the endorsed one (${inLog(doc.publicKey)})`);
  const sha256 = sha256Hex(docs.registry);
  if (sha256 !== doc.sha256) throw new PeerRefused('its registry does not match its signature document (digest mismatch)');
  if (!verifySignature(docs.registry, doc.signature, endorsedKey)) throw new PeerRefused('bad signature: the registry is not signed by the endorsed key');
  if (semver.valid(doc.version) === null || doc.version !== semver.clean(doc.version)) throw new PeerRefused('its signature document names no semantic version');
  if (inUse !== undefined) refuseOlderVersion(inUse, doc.version);

  // Whatever the (unsigned) signedBy says: a history, when there is one, must verify; a curator's
  // signature comes with one.
  const historyText = texts.history!;
  const hasHistory = doc.signedBy === 'curator' || historyText.trim() !== '[]';
  if (hasHistory) {
    // One entry per line, as sign writes it: counted before any of it is parsed or verified.
    if (historyText.split('\n', PEER_LIMITS.historyEntries + 3).length > PEER_LIMITS.historyEntries + 2) throw new PeerRefused(`a history of more than ${PEER_LIMITS.historyEntries} entries`);
    if (!jsonDepthWithin(docs.history, PEER_LIMITS.depth)) throw new PeerRefused(`its history nests deeper than ${PEER_LIMITS.depth} levels`);
  }
  if (inUse?.head !== undefined) refuseRewrittenHistory(inUse, hasHistory ? historyText : '[]');

  if (!jsonDepthWithin(docs.registry, PEER_LIMITS.depth)) throw new PeerRefused(`its registry nests deeper than ${PEER_LIMITS.depth} levels`);
  let data: unknown;
  try {
    data = JSON.parse(texts.registry!);
  } catch {
    throw new PeerRefused('its registry is not JSON');
  }
  if (canonicalize(data) !== texts.registry) {
    // Only once the copy is refused anyway: a key written twice is named, with where (one scan).
    const duplicate = duplicateKeys(texts.registry!)[0];
    throw new PeerRefused(`its registry is not in RFC 8785 canonical form${duplicate === undefined ? '' : ` (${duplicate})`}`);
  }
  const categories = (data as { categories?: unknown } | null)?.categories;
  if (categories !== null && typeof categories === 'object') {
    if (Object.keys(categories).length > PEER_LIMITS.categories) throw new PeerRefused(`more than ${PEER_LIMITS.categories} categories`);
    const overfull = overfullList(categories);
    if (overfull !== undefined) throw new PeerRefused(overfull);
  }
  if (longestText(data) > PEER_LIMITS.textLength) throw new PeerRefused(`a text longer than ${PEER_LIMITS.textLength} characters`);
  const checked = validateRegistry(data, { ignoreUnknownFields: true, allowLoopbackHttp });
  if (!checked.ok) throw new PeerRefused(`its registry breaks our rules: ${checked.problems[0]}`);
  // What an answer shows of the peer is made one line, printable, short, here, once per copy.
  const registry = peerRegistryForDisplay(checked.registry);
  if (registry.curator.pubkey !== endorsedKey) throw new PeerRefused('its registry names another curator key than the endorsed one');
  if (registry.version !== doc.version) throw new PeerRefused('its signature document names another version than its registry');
  if (!hasHistory) return { registry, sha256, version: registry.version, signedBy: doc.signedBy, history: [] };
  // The entries are counted as soon as they are parsed, before any signature is checked: a history
  // written on one line passes the count of lines above.
  const history = checkHistory(historyText, endorsedKey, PEER_LIMITS.historyEntries);
  if (!history.ok) throw new PeerRefused(history.tooMany ? `a history of more than ${PEER_LIMITS.historyEntries} entries` : `broken history: ${history.problem}`);
  const head = history.entries[history.entries.length - 1]!;
  if (head.sha256 !== sha256) throw new PeerRefused('its history does not end at the registry it serves');
  return { registry, sha256, version: registry.version, signedBy: doc.signedBy, history: history.entries };
}

/**
 * A peer's new copy must move forward from the one in use: a higher version, and a history that
 * extends the one seen (as a reload of our own registry must). Otherwise whoever controls the
 * peer's server could replay an older signed registry, or a branch the curator abandoned.
 */
function refuseOlderVersion (inUse: InUse, version: string): void {
  if (semver.gt(version, inUse.version)) return;
  throw new PeerRefused(
    version === inUse.version
      ? `another registry under the version in use (${inUse.version})`
      : `an older version (${inLog(version, 40)}) than the one in use (${inUse.version})`
  );
}

/** The entry at the place of the newest one in use must be that entry: found by position, one entry parsed. */
function refuseRewrittenHistory (inUse: InUse, historyText: string): void {
  const refused = () => new PeerRefused(`a history that does not extend the one in use (version ${inUse.version})`);
  // `sign` writes one entry per line after a line holding "[": entry n is on line n + 1.
  const line = historyText.split('\n', inUse.historyLength + 1)[inUse.historyLength];
  if (line === undefined) throw refused();
  let entry: unknown;
  try {
    entry = JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line);
  } catch {
    throw refused();
  }
  if (entry === null || typeof entry !== 'object' || entryHash(entry as HistoryEntry) !== inUse.head) throw refused();
}
