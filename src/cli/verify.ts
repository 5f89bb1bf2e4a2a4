import { stat } from 'node:fs/promises';
import canonicalize from 'canonicalize';
import { sha256Hex } from '../provenance/canonical.js';
import { checkCuratorSigned } from '../provenance/curator-signed.js';
import { checkHistory, type HistoryEntry } from '../provenance/history.js';
import { decodePublicKey } from '../provenance/keys.js';
import { getDocument, PeerFetchError } from '../federation/fetch.js';
import { DOCUMENT_LIMITS } from '../federation/verifier.js';
import { jsonDepthWithin } from '../util/json-depth.js';
import { decodeUtf8 } from '../util/utf8.js';
import { FileUnreadable, readIfPresent, signedFiles } from '../provenance/signed-files.js';
import { parseSignatureDocument, verifySignature, type SigningMode } from '../provenance/signature.js';
import { readRegistry } from '../registry/load.js';
import { duplicateKeys } from '../registry/parse-json.js';
import { PUBLIC_KEY_LENGTH } from '../registry/schema.js';
import { rulesFromEnv, takeOption, type CliIo } from './io.js';
import { KnownFailure, rememberHead } from './known.js';

export const VERIFY_USAGE =
  'verify <url-or-base-url | registry.json> --pubkey <z-base-32 key> [--known FILE]   check a served (or local) registry, its signature and its whole history against that key; --known FILE also fails on a rewritten history or a replayed older version';

const TIMEOUT_MS = 10_000;
/** Nesting far beyond a registry's (5 levels) or a history's (6): refused before anything parses it. */
const MAX_DEPTH = 16;

class VerifyFailure extends Error {}

/** A reload fell between the fetches: worth one more try. */
class Straddle extends VerifyFailure {}

/** Text a server chose, made safe to print: no control characters (terminal escapes), at most 80 characters. */
function shown (text: string): string {
  // eslint-disable-next-line no-control-regex -- it finds control characters to replace them
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return plain.length > 80 ? `${plain.slice(0, 77)}...` : plain;
}

/** What was checked, whatever the source. */
interface Verified {
  readonly where: string;
  readonly version: string;
  readonly sha256: string;
  readonly signedBy: SigningMode;
  readonly history: readonly HistoryEntry[];
}

/** The server's base URL, from its base, its /registry(/signature|/history) or its /mcp URL. */
function baseOf (text: string): URL {
  const url = new URL(text);
  url.pathname = url.pathname.replace(/\/(registry(\/signature|\/history)?|mcp)\/?$/, '/');
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * One document, at most as large as a peer may send it (what a federation would accept), read
 * with the same contained HTTP client: a hostile server can make verify wait 10 s, never hold
 * more than these few megabytes.
 */
async function get (url: URL, maxBytes: number): Promise<{ body: Buffer; etag: string | null }> {
  try {
    const { body, etag } = await getDocument(url, { timeoutMs: TIMEOUT_MS, maxBytes, maxRedirects: 0, allowLoopbackHttp: true });
    return { body, etag: etag ?? null };
  } catch (err) {
    if (!(err instanceof PeerFetchError)) throw err;
    const { failure, message } = err;
    if (failure === 'unreachable' || failure === 'timeout' || failure === 'cut-off') throw new VerifyFailure(`unreachable: ${url.href} (${failure === 'unreachable' ? message.replace(/^unreachable \((.*)\)$/, '$1') : message})`);
    if (failure === 'status') throw new VerifyFailure(`malformed reply: ${url.href} answered ${message}`);
    throw new VerifyFailure(`malformed reply: ${url.href}: ${message}`);
  }
}

/** Checks a server once more if a reload fell between the fetches (the ETags or the history head disagree). */
async function verifyServer (target: string, pubkey: string): Promise<Verified> {
  const base = baseOf(target);
  try {
    return await verifyServerOnce(base, pubkey);
  } catch (err) {
    if (!(err instanceof Straddle)) throw err;
    return verifyServerOnce(base, pubkey);
  }
}

async function verifyServerOnce (base: URL, pubkey: string): Promise<Verified> {
  const [registryUrl, signatureUrl, historyUrl] = ['registry', 'registry/signature', 'registry/history'].map((p) => new URL(p, base)) as [URL, URL, URL];
  const [{ body, etag }, { body: sigBytes, etag: sigEtag }, { body: historyBytes }] = await Promise.all([
    get(registryUrl, DOCUMENT_LIMITS.registry),
    get(signatureUrl, DOCUMENT_LIMITS.signature),
    get(historyUrl, DOCUMENT_LIMITS.history),
  ]);
  if (etag !== sigEtag) throw new Straddle('the server changed its registry while we fetched it (the ETags of /registry and /registry/signature differ); try again');
  // Cheapest first, as the federation does: nothing is parsed before the signature over the
  // exact bytes holds, so a hostile reply costs a hash, not a parse.
  const parsed = parseSignatureDocument(sigBytes);
  if (!parsed.ok) throw new VerifyFailure(`malformed reply: ${signatureUrl.href}: ${parsed.problem}`);
  const doc = parsed.doc;
  if (doc.publicKey !== pubkey) {
    const named = decodePublicKey(doc.publicKey) === undefined ? 'a malformed key' : doc.publicKey;
    throw new VerifyFailure(`different key: the server signs with ${named}, not ${pubkey}`);
  }
  const digest = sha256Hex(body);
  if (digest !== doc.sha256) throw new VerifyFailure(`digest mismatch: /registry hashes to ${digest}, the signature document says ${shown(doc.sha256)}`);
  if (!verifySignature(body, doc.signature, pubkey)) throw new VerifyFailure(`bad signature: the registry is not signed by ${pubkey}`);
  const registryText = decodeUtf8(body);
  if (registryText === undefined) throw new VerifyFailure(`malformed reply: ${registryUrl.href} is not valid UTF-8`);
  if (!jsonDepthWithin(body, MAX_DEPTH)) throw new VerifyFailure(`malformed reply: ${registryUrl.href} nests deeper than ${MAX_DEPTH} levels`);
  let registry: unknown;
  try {
    registry = JSON.parse(registryText);
  } catch {
    throw new VerifyFailure(`malformed reply: ${registryUrl.href} is not JSON`);
  }
  if (canonicalize(registry) !== registryText) {
    // A key written twice is one way to differ from the canonical form: it is named, with where.
    const duplicate = duplicateKeys(registryText)[0];
    throw new VerifyFailure(`malformed reply: /registry is not in RFC 8785 canonical form${duplicate === undefined ? '' : ` (${duplicate})`}`);
  }
  // The version comes from the signed bytes: the signature document's own fields are not signed.
  const version = String((registry as { version?: unknown } | null)?.version ?? '');
  if (version !== doc.version) throw new VerifyFailure(`malformed reply: the signature document names version ${shown(doc.version)}, the signed registry ${shown(version)}`);

  const text = decodeUtf8(historyBytes);
  if (text === undefined) throw new VerifyFailure(`malformed reply: ${historyUrl.href} is not valid UTF-8`);
  // Only a curator-signed registry has a history; a server that signs itself serves [].
  if (doc.signedBy !== 'curator' && text.trim() === '[]') return { where: base.href, version, sha256: digest, signedBy: doc.signedBy, history: [] };
  if (!jsonDepthWithin(historyBytes, MAX_DEPTH)) throw new VerifyFailure(`broken history: ${historyUrl.href} nests deeper than ${MAX_DEPTH} levels`);
  const history = checkHistory(text, pubkey);
  if (!history.ok) throw new VerifyFailure(`broken history: ${historyUrl.href}: ${history.problem}`);
  const head = history.entries[history.entries.length - 1]!;
  if (head.sha256 !== digest || head.version !== version) {
    throw new Straddle(`history head is not the served registry: its newest entry is ${shown(head.version)} (sha256 ${head.sha256}), the server serves ${shown(version)} (sha256 ${digest})`);
  }
  return { where: base.href, version, sha256: digest, signedBy: doc.signedBy, history: history.entries };
}

async function verifyFile (file: string, pubkey: string): Promise<Verified> {
  const read = await readRegistry(file, rulesFromEnv());
  if (!read.ok) throw new VerifyFailure(`${file} breaks the registry rules: ${read.problems[0]}${read.problems.length > 1 ? ` (and ${read.problems.length - 1} more; run check)` : ''}`);
  const files = signedFiles(file);
  let signatureBytes: Buffer | undefined;
  let historyBytes: Buffer | undefined;
  try {
    [signatureBytes, historyBytes] = await Promise.all([readIfPresent(files.signature), readIfPresent(files.history)]);
  } catch (err) {
    throw new VerifyFailure((err as FileUnreadable).message);
  }
  const check = checkCuratorSigned(read.registry, { registryFile: file, signatureFile: files.signature, historyFile: files.history, signatureBytes, historyBytes }, pubkey, '--pubkey');
  if (!check.ok) throw new VerifyFailure(check.problem);
  return { where: file, version: read.registry.version, sha256: check.signed.sha256, signedBy: 'curator', history: check.signed.history };
}

/** A target that is not a server must be a file; say which was meant when it is neither. */
async function existingFile (target: string): Promise<string> {
  const exists = await stat(target).then(() => true, () => false);
  if (exists) return target;
  throw new VerifyFailure(URL.canParse(target) ? `not an http(s) URL: ${target}` : `not a URL, and no such file: ${target}`);
}

/** A target is a server when it reads as an http(s) URL and no such file exists. */
async function isServer (target: string): Promise<boolean> {
  if (!URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol)) return false;
  return stat(target).then(() => false, () => true);
}

/**
 * Checks a registry against a key the user got from the curator: the signature, every history
 * entry and link, and that the newest entry is the registry served. With --known, the head seen
 * is remembered and must be extended next time, the way sumdb clients pin the checksum log.
 */
export async function verify (args: readonly string[], io: CliIo): Promise<number> {
  const { value: pubkey, rest: afterKey } = takeOption(args, 'pubkey');
  const { value: known, rest } = takeOption(afterKey, 'known');
  if (rest.length !== 1 || pubkey === undefined || (afterKey.includes('--known') && known === undefined) || rest[0]!.startsWith('--')) {
    io.err(`usage: three-good-sources ${VERIFY_USAGE}`);
    return 1;
  }
  if (decodePublicKey(pubkey) === undefined) {
    io.err(`FAIL bad --pubkey: not a z-base-32 Ed25519 public key (${PUBLIC_KEY_LENGTH} characters): ${pubkey}`);
    return 1;
  }
  const target = rest[0]!;
  try {
    const verified = (await isServer(target)) ? await verifyServer(target, pubkey) : await verifyFile(await existingFile(target), pubkey);
    const { history } = verified;
    const head = history[history.length - 1];
    let pinned = '';
    if (known !== undefined) {
      if (head === undefined) throw new VerifyFailure(`no signed history to remember: ${verified.where} is signed by the ${verified.signedBy}, not by its curator with sign`);
      pinned = `; ${await rememberHead(known, pubkey, history)}`;
    }
    const detail = head === undefined
      ? `; the server says it signs the registry itself (${verified.signedBy} key), so there is no signed history to check`
      : `, with a verified history of ${history.length} ${history.length === 1 ? 'entry' : 'entries'}`;
    io.out(`OK registry ${shown(verified.version)} from ${verified.where} is signed by ${pubkey}${detail} (sha256 ${verified.sha256})${pinned}`);
    return 0;
  } catch (err) {
    // Whatever a server sends, the answer is one FAIL line and exit 1, never a stack trace.
    io.err(err instanceof VerifyFailure || err instanceof KnownFailure ? `FAIL ${err.message}` : `FAIL could not verify ${shown(target)} (${err instanceof Error ? err.name : 'error'})`);
    return 1;
  }
}
