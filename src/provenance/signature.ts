import { sign, verify } from 'node:crypto';
import type { Registry } from '../registry/types.js';
import { canonicalBytes, sha256Hex } from './canonical.js';
import { decodePublicKey, publicKeyObject, type CuratorKey } from './keys.js';
import { duplicateKeys } from '../registry/parse-json.js';

export const ALGORITHM = 'ed25519';
export const CANONICALIZATION = 'RFC8785';

/**
 * Who made the signature: the curator, offline, with `sign` (the server holds no secret); this
 * server, with the curator key it was given (an operator who is the curator); or a key this
 * server made at start-up (development: it proves nothing about any curator).
 */
export const SIGNING_MODES = ['curator', 'server', 'ephemeral'] as const;
export type SigningMode = (typeof SIGNING_MODES)[number];

/** A registry as served: its canonical bytes, their digest and the curator's signature over exactly them. */
export interface SignedRegistry {
  readonly canonical: Buffer;
  readonly sha256: string;
  /** Base64 of the 64 signature bytes. */
  readonly signature: string;
  readonly publicKey: string;
  readonly version: string;
  readonly mode: SigningMode;
}

/** The public shape of GET /registry/signature. */
export interface SignatureDocument {
  readonly algorithm: typeof ALGORITHM;
  readonly canonicalization: typeof CANONICALIZATION;
  readonly publicKey: string;
  readonly signature: string;
  readonly sha256: string;
  readonly version: string;
  readonly signedBy: SigningMode;
}

export function signRegistry (registry: Registry, key: CuratorKey, mode: SigningMode): SignedRegistry {
  const canonical = canonicalBytes(registry);
  return {
    canonical,
    sha256: sha256Hex(canonical),
    signature: sign(null, canonical, key.privateKey).toString('base64'),
    publicKey: key.publicKey,
    version: registry.version,
    mode,
  };
}

export function signatureDocument (signed: SignedRegistry): SignatureDocument {
  return {
    algorithm: ALGORITHM,
    canonicalization: CANONICALIZATION,
    publicKey: signed.publicKey,
    signature: signed.signature,
    sha256: signed.sha256,
    version: signed.version,
    signedBy: signed.mode,
  };
}

/** A signature document's bytes: one line of JSON, as `sign` writes it and the server serves it. */
export function signatureDocumentBytes (doc: SignatureDocument): Buffer {
  return Buffer.from(`${JSON.stringify(doc)}\n`, 'utf8');
}

export type SignatureDocumentCheck = { readonly ok: true; readonly doc: SignatureDocument } | { readonly ok: false; readonly problem: string };

/** Reads a signature document (a file or a reply); says what is wrong without quoting it. */
export function parseSignatureDocument (bytes: Uint8Array): SignatureDocumentCheck {
  let doc: unknown;
  const text = Buffer.from(bytes).toString('utf8');
  try {
    doc = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON (a truncated or hand-edited file?)' };
  }
  // Two "signature" fields, say, and JSON.parse would keep the last without a word.
  const duplicate = duplicateKeys(text)[0];
  if (duplicate !== undefined) return { ok: false, problem: duplicate };
  const d = (doc ?? {}) as Partial<Record<keyof SignatureDocument, unknown>>;
  const fields = ['publicKey', 'signature', 'sha256', 'version'] as const;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || fields.some((f) => typeof d[f] !== 'string')) {
    return { ok: false, problem: 'lacks publicKey, signature, sha256 or version' };
  }
  if (d.algorithm !== ALGORITHM || d.canonicalization !== CANONICALIZATION) {
    return { ok: false, problem: `expected algorithm ${ALGORITHM} and canonicalization ${CANONICALIZATION}` };
  }
  if (!SIGNING_MODES.includes(d.signedBy as SigningMode)) return { ok: false, problem: `signedBy must be one of ${SIGNING_MODES.join(', ')}` };
  const exact: SignatureDocument = {
    algorithm: ALGORITHM,
    canonicalization: CANONICALIZATION,
    publicKey: d.publicKey as string,
    signature: d.signature as string,
    sha256: d.sha256 as string,
    version: d.version as string,
    signedBy: d.signedBy as SigningMode,
  };
  // Byte for byte what sign writes: no field twice (parsers disagree on which one counts), none extra.
  if (!signatureDocumentBytes(exact).equals(bytes)) return { ok: false, problem: 'not in the form sign writes (one line of JSON with exactly its fields, in its order)' };
  return { ok: true, doc: exact };
}

/** True when `signature` (base64) is the Ed25519 signature of `bytes` by the z-base-32 `publicKey`. */
export function verifySignature (bytes: Uint8Array, signature: string, publicKey: string): boolean {
  const raw = decodePublicKey(publicKey);
  const sig = Buffer.from(signature, 'base64');
  if (raw === undefined || sig.length !== 64 || sig.toString('base64') !== signature) return false;
  return verify(null, bytes, publicKeyObject(raw), sig);
}
