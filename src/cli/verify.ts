import canonicalize from 'canonicalize';
import { sha256Hex } from '../provenance/canonical.js';
import { decodePublicKey } from '../provenance/keys.js';
import { ALGORITHM, CANONICALIZATION, verifySignature, type SignatureDocument } from '../provenance/signature.js';
import { PUBLIC_KEY_LENGTH } from '../registry/schema.js';
import { takeOption, type CliIo } from './io.js';

export const VERIFY_USAGE = 'verify <url-or-base-url> --pubkey <z-base-32 key>   check that a server serves a registry signed by that key';

const TIMEOUT_MS = 10_000;

class VerifyFailure extends Error {}

/** The server's base URL, from its base, its /registry, its /registry/signature or its /mcp URL. */
function baseOf(text: string): URL {
  if (!URL.canParse(text)) throw new VerifyFailure(`not a URL: ${text}`);
  const url = new URL(text);
  if (!/^https?:$/.test(url.protocol)) throw new VerifyFailure(`not an http(s) URL: ${text}`);
  url.pathname = url.pathname.replace(/\/(registry(\/signature)?|mcp)\/?$/, '/');
  url.search = '';
  url.hash = '';
  return url;
}

async function get(url: URL): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    throw new VerifyFailure(`unreachable: ${url.href} (${cause})`);
  }
  if (!res.ok) throw new VerifyFailure(`malformed reply: ${url.href} answered HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

function parseSignature(bytes: Buffer, url: URL): SignatureDocument {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new VerifyFailure(`malformed reply: ${url.href} is not JSON`);
  }
  const d = doc as Partial<Record<keyof SignatureDocument, unknown>>;
  const fields = ['publicKey', 'signature', 'sha256', 'version'] as const;
  if (doc === null || typeof doc !== 'object' || fields.some((f) => typeof d[f] !== 'string')) {
    throw new VerifyFailure(`malformed reply: ${url.href} lacks publicKey, signature, sha256 or version`);
  }
  if (d.algorithm !== ALGORITHM || d.canonicalization !== CANONICALIZATION) {
    throw new VerifyFailure(`malformed reply: expected algorithm ${ALGORITHM} and canonicalization ${CANONICALIZATION}`);
  }
  return doc as SignatureDocument;
}

/** Fetches /registry and /registry/signature and checks key, digest, canonical form and signature. */
export async function verify(args: readonly string[], io: CliIo): Promise<number> {
  const { value: pubkey, rest } = takeOption(args, 'pubkey');
  if (rest.length !== 1 || pubkey === undefined) {
    io.err(`usage: three-good-sources ${VERIFY_USAGE}`);
    return 1;
  }
  if (decodePublicKey(pubkey) === undefined) {
    io.err(`FAIL bad --pubkey: not a z-base-32 Ed25519 public key (${PUBLIC_KEY_LENGTH} characters): ${pubkey}`);
    return 1;
  }
  try {
    const base = baseOf(rest[0]!);
    const registryUrl = new URL('registry', base);
    const signatureUrl = new URL('registry/signature', base);
    const [body, sigBytes] = await Promise.all([get(registryUrl), get(signatureUrl)]);
    const doc = parseSignature(sigBytes, signatureUrl);
    if (doc.publicKey !== pubkey) throw new VerifyFailure(`different key: the server signs with ${doc.publicKey}, not ${pubkey}`);
    const digest = sha256Hex(body);
    if (digest !== doc.sha256) throw new VerifyFailure(`digest mismatch: /registry hashes to ${digest}, the signature document says ${doc.sha256}`);
    let canonical: string | undefined;
    try {
      canonical = canonicalize(JSON.parse(body.toString('utf8')));
    } catch {
      throw new VerifyFailure(`malformed reply: ${registryUrl.href} is not JSON`);
    }
    if (canonical !== body.toString('utf8')) throw new VerifyFailure('malformed reply: /registry is not in RFC 8785 canonical form');
    if (!verifySignature(body, doc.signature, pubkey)) throw new VerifyFailure(`bad signature: the registry is not signed by ${pubkey}`);
    io.out(`OK registry ${doc.version} from ${base.href} is signed by ${pubkey} (sha256 ${digest})`);
    return 0;
  } catch (err) {
    if (!(err instanceof VerifyFailure)) throw err;
    io.err(`FAIL ${err.message}`);
    return 1;
  }
}
