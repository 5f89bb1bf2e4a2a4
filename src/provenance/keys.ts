import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import * as z32 from 'z32';

/** The curator's Ed25519 key: the secret stays in this object, the public half is shared. */
export interface CuratorKey {
  /** PKARR-style: the 32 raw key bytes in z-base-32, 52 characters. */
  readonly publicKey: string;
  readonly privateKey: KeyObject;
  /** Generated at start-up because none was configured: signatures change on restart. */
  readonly ephemeral: boolean;
}

// DER headers that wrap raw Ed25519 key bytes (RFC 8410): node:crypto imports keys in these forms.
const PKCS8_SEED_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** 64 hexadecimal characters: the 32-byte seed of an Ed25519 key. */
export function parseSeed (hex: string): Buffer | undefined {
  return /^[0-9a-fA-F]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

export function keyFromSeed (seed: Buffer, ephemeral = false): CuratorKey {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { publicKey: z32.encode(spki.subarray(SPKI_PREFIX.length)), privateKey, ephemeral };
}

/** A new random key, returned with its seed so that keygen can store it. */
export function generateKey (ephemeral = false): { key: CuratorKey; seed: Buffer } {
  const seed = randomBytes(32);
  return { key: keyFromSeed(seed, ephemeral), seed };
}

/** The 32 raw bytes of a z-base-32 public key, or undefined when it is not one. */
export function decodePublicKey (text: string): Buffer | undefined {
  if (!/^[ybndrfg8ejkmcpqxot1uwisza345h769]{52}$/.test(text)) return undefined;
  const raw = z32.decode(text);
  // 52 characters carry 260 bits: the last 4 must be zero for the text to be the key's only spelling.
  return raw.length === 32 && z32.encode(raw) === text ? raw : undefined;
}

export function publicKeyObject (raw: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}
