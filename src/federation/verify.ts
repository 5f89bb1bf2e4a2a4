import canonicalize from 'canonicalize';
import { sha256Hex } from '../provenance/canonical.js';
import { checkHistory, type HistoryEntry } from '../provenance/history.js';
import { parseSignatureDocument, verifySignature, type SigningMode } from '../provenance/signature.js';
import type { Registry } from '../registry/types.js';
import { validateRegistry } from '../registry/validate.js';

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

export class PeerRefused extends Error {}

/** Bounds on what one peer may make us hold and index: far above a real registry of vetted sources. */
export const PEER_LIMITS = { categories: 1000, historyEntries: 1000, textLength: 4000 } as const;

/** The longest string anywhere in a parsed JSON value. */
function longestText(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  let longest = 0;
  for (const [k, v] of Object.entries(value)) longest = Math.max(longest, k.length, longestText(v));
  return longest;
}

/**
 * Accepts a peer's registry only if it is signed by exactly the endorsed key, its digest is the
 * one signed, it names that key as its curator, it passes our registry rules (fields we do not
 * know are dropped: a peer may run a newer version), and, when its curator signed it, its
 * history verifies and ends at this registry. Every refusal says why in one line.
 */
export function verifyPeer(docs: PeerDocuments, endorsedKey: string, allowLoopbackHttp: boolean): VerifiedPeer {
  const parsed = parseSignatureDocument(docs.signature);
  if (!parsed.ok) throw new PeerRefused(`signature document: ${parsed.problem}`);
  const doc = parsed.doc;
  if (doc.publicKey !== endorsedKey) throw new PeerRefused(`signed by another key than the endorsed one (${doc.publicKey.slice(0, 60)})`);
  const sha256 = sha256Hex(docs.registry);
  if (sha256 !== doc.sha256) throw new PeerRefused('its registry does not match its signature document (digest mismatch)');
  if (!verifySignature(docs.registry, doc.signature, endorsedKey)) throw new PeerRefused('bad signature: the registry is not signed by the endorsed key');
  let data: unknown;
  try {
    data = JSON.parse(docs.registry.toString('utf8'));
  } catch {
    throw new PeerRefused('its registry is not JSON');
  }
  if (canonicalize(data) !== docs.registry.toString('utf8')) throw new PeerRefused('its registry is not in RFC 8785 canonical form');
  const categories = (data as { categories?: unknown } | null)?.categories;
  if (categories !== null && typeof categories === 'object' && Object.keys(categories).length > PEER_LIMITS.categories) {
    throw new PeerRefused(`more than ${PEER_LIMITS.categories} categories`);
  }
  if (longestText(data) > PEER_LIMITS.textLength) throw new PeerRefused(`a text longer than ${PEER_LIMITS.textLength} characters`);
  const checked = validateRegistry(data, { ignoreUnknownFields: true, allowLoopbackHttp });
  if (!checked.ok) throw new PeerRefused(`its registry breaks our rules: ${checked.problems[0]}`);
  const registry = checked.registry;
  if (registry.curator.pubkey !== endorsedKey) throw new PeerRefused('its registry names another curator key than the endorsed one');
  if (registry.version !== doc.version) throw new PeerRefused('its signature document names another version than its registry');
  // Whatever the (unsigned) signedBy says: a history, when there is one, must verify; a curator's
  // signature comes with one.
  const historyText = docs.history.toString('utf8');
  if (doc.signedBy === 'curator' || historyText.trim() !== '[]') {
    // One entry per line, as sign writes it: counted before any of it is parsed or verified.
    if (historyText.split('\n').length > PEER_LIMITS.historyEntries + 2) throw new PeerRefused(`a history of more than ${PEER_LIMITS.historyEntries} entries`);
    const history = checkHistory(historyText, endorsedKey);
    if (!history.ok) throw new PeerRefused(`broken history: ${history.problem}`);
    const head = history.entries[history.entries.length - 1]!;
    if (head.sha256 !== sha256) throw new PeerRefused('its history does not end at the registry it serves');
    return { registry, sha256, version: registry.version, signedBy: doc.signedBy, history: history.entries };
  }
  return { registry, sha256, version: registry.version, signedBy: doc.signedBy, history: [] };
}
