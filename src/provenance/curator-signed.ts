import { basename } from 'node:path';
import type { Registry } from '../registry/types.js';
import { canonicalBytes, sha256Hex } from './canonical.js';
import { checkHistory, type HistoryEntry } from './history.js';
import semver from 'semver';
import { parseSignatureDocument, verifySignature, type SignatureDocument } from './signature.js';

/** A registry with the curator's signature and history, every check passed. */
export interface CuratorSigned {
  readonly canonical: Buffer;
  readonly sha256: string;
  readonly document: SignatureDocument;
  /** The signature file as the curator wrote it: served byte for byte. */
  readonly documentBytes: Buffer;
  readonly history: readonly HistoryEntry[];
  readonly historyBytes: Buffer;
}

export interface CuratorFiles {
  readonly registryFile: string;
  readonly signatureFile: string;
  readonly historyFile: string;
  /** Undefined when the file does not exist. */
  readonly signatureBytes: Buffer | undefined;
  readonly historyBytes: Buffer | undefined;
}

export type CuratorSignedCheck = { readonly ok: true; readonly signed: CuratorSigned } | { readonly ok: false; readonly problem: string };

/**
 * Checks a registry against the curator's signature and history, with the key the verifier
 * trusts (never the one the files name): the signature is by that key and covers exactly this
 * registry's canonical bytes; every history entry is signed by that key and linked to the one
 * before; and the newest entry is this registry. Each failure is one line saying which.
 */
export function checkCuratorSigned (registry: Registry, files: CuratorFiles, publicKey: string, keySource: string): CuratorSignedCheck {
  const [registryName, signatureName, historyName] = [files.registryFile, files.signatureFile, files.historyFile].map((f) => basename(f));
  const fail = (problem: string): CuratorSignedCheck => ({ ok: false, problem });
  if (files.signatureBytes === undefined) return fail(`${signatureName} is missing: sign the registry with npx three-good-sources sign ${registryName} --key <file>`);
  if (files.historyBytes === undefined) return fail(`${historyName} is missing: copy it from where the registry was signed`);

  const parsed = parseSignatureDocument(files.signatureBytes);
  if (!parsed.ok) return fail(`${signatureName}: ${parsed.problem}`);
  const doc = parsed.doc;
  if (doc.publicKey !== publicKey) return fail(`${signatureName}: signature by another key (${doc.publicKey}; expected ${publicKey} from ${keySource})`);
  if (doc.signedBy !== 'curator') return fail(`${signatureName}: says it was signed by "${doc.signedBy}", not by the curator with sign`);
  if (registry.curator.pubkey !== publicKey) {
    return fail(`${registryName}: curator.pubkey is ${registry.curator.pubkey || 'empty'}, but the registry must name its curator ${publicKey} (${keySource})`);
  }

  const canonical = canonicalBytes(registry);
  const sha256 = sha256Hex(canonical);
  if (sha256 !== doc.sha256 || registry.version !== doc.version) return fail(notTheSignedRegistry(registryName, signatureName, registry.version, sha256, doc));
  if (!verifySignature(canonical, doc.signature, publicKey)) return fail(`${signatureName}: bad signature: it does not verify with ${publicKey}`);

  const history = checkHistory(files.historyBytes.toString('utf8'), publicKey);
  if (!history.ok) return fail(`${historyName}: broken history: ${history.problem}`);
  const head = history.entries[history.entries.length - 1]!;
  if (head.sha256 !== sha256 || head.version !== registry.version) {
    return fail(
      `${historyName}: its newest entry (version ${head.version}, sha256 ${head.sha256}) is not the served registry (version ${registry.version}, sha256 ${sha256}): ` +
        `the history does not belong with these files; copy ${historyName} from where version ${registry.version} was signed`
    );
  }
  return {
    ok: true,
    signed: { canonical, sha256, document: doc, documentBytes: files.signatureBytes, history: history.entries, historyBytes: files.historyBytes },
  };
}

/**
 * Why a registry is not the one its signature covers, and the one step that fixes it: an edit
 * without a raised version (sign refuses to sign the same version with other content), a new
 * version not signed yet, or files from different versions put together.
 */
function notTheSignedRegistry (registryName: string, signatureName: string, version: string, sha256: string, doc: SignatureDocument): string {
  const facts = `its SHA-256 is ${sha256} (version ${version}); the signature covers ${doc.sha256} (version ${doc.version})`;
  if (version === doc.version) {
    return `${registryName} was edited after version ${version} was signed, and its version was not raised (${facts}): raise "version" above ${version} (e.g. ${semver.inc(version, 'patch') ?? 'a higher version'}), then sign it (npx three-good-sources sign ${registryName} --key <file>)`;
  }
  if (semver.valid(version) !== null && semver.valid(doc.version) !== null && semver.gt(version, doc.version)) {
    return `${registryName} is version ${version}, which is not signed yet; ${signatureName} covers version ${doc.version} (${facts}): sign it (npx three-good-sources sign ${registryName} --key <file>)`;
  }
  return `${registryName} (version ${version}) is older than what ${signatureName} covers (version ${doc.version}): the files do not belong together (${facts}); put back the registry that was signed (registry.signed.json beside it holds its exact bytes)`;
}
