import { sign, verify } from 'node:crypto';
import type { Registry } from '../registry/types.js';
import { canonicalBytes, sha256Hex } from './canonical.js';
import { decodePublicKey, publicKeyObject, type CuratorKey } from './keys.js';

export const ALGORITHM = 'ed25519';
export const CANONICALIZATION = 'RFC8785';

/** A registry as served: its canonical bytes, their digest and the curator's signature over exactly them. */
export interface SignedRegistry {
  readonly canonical: Buffer;
  readonly sha256: string;
  /** Base64 of the 64 signature bytes. */
  readonly signature: string;
  readonly publicKey: string;
  readonly version: string;
  readonly ephemeralKey: boolean;
}

/** The public shape of GET /registry/signature. */
export interface SignatureDocument {
  readonly algorithm: typeof ALGORITHM;
  readonly canonicalization: typeof CANONICALIZATION;
  readonly publicKey: string;
  readonly signature: string;
  readonly sha256: string;
  readonly version: string;
}

export function signRegistry(registry: Registry, key: CuratorKey): SignedRegistry {
  const canonical = canonicalBytes(registry);
  return {
    canonical,
    sha256: sha256Hex(canonical),
    signature: sign(null, canonical, key.privateKey).toString('base64'),
    publicKey: key.publicKey,
    version: registry.version,
    ephemeralKey: key.ephemeral,
  };
}

export function signatureDocument(signed: SignedRegistry): SignatureDocument {
  return {
    algorithm: ALGORITHM,
    canonicalization: CANONICALIZATION,
    publicKey: signed.publicKey,
    signature: signed.signature,
    sha256: signed.sha256,
    version: signed.version,
  };
}

/** True when `signature` (base64) is the Ed25519 signature of `bytes` by the z-base-32 `publicKey`. */
export function verifySignature(bytes: Uint8Array, signature: string, publicKey: string): boolean {
  const raw = decodePublicKey(publicKey);
  const sig = Buffer.from(signature, 'base64');
  if (raw === undefined || sig.length !== 64 || sig.toString('base64') !== signature) return false;
  return verify(null, bytes, publicKeyObject(raw), sig);
}
