import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The RFC 8785 (JSON Canonicalization Scheme) bytes of a JSON value: what gets signed and served. */
export function canonicalBytes (value: unknown): Buffer {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return Buffer.from(text, 'utf8');
}

export function sha256Hex (bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
