import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project.js';
import type { Registry } from '../registry/types.js';
import { ZBASE32_ALPHABET } from '../registry/schema.js';
import type { HistoryEntry } from './history.js';
import { decodePublicKey, publicKeyObject } from './keys.js';
import { ALGORITHM, CANONICALIZATION, type SignedRegistry, type SigningMode } from './signature.js';

/**
 * The provenance of a served registry as facts: who signed it and how, its history's head, and
 * how anyone can check it (the openssl recipe, our CLI). The get_provenance tool answers with
 * them and the page shows them: both read them here, where the signing facts live.
 */

/** What a reader replaces: a tool answer does not know the address its caller reached it at. */
export const BASE_URL_PLACEHOLDER = "<this server's base URL>";

/** RFC 4648 base32, the alphabet coreutils' base32 reads; z-base-32 uses the same bit order. */
const RFC4648_BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export interface VerificationRecipes {
  /** Shell commands for openssl 3 and coreutils, to run one after the other in an empty folder. */
  readonly openssl: readonly string[];
  /** Our command-line tool: fetch the project (when its repository is known), install, verify. */
  readonly cli: readonly string[];
}

export interface RecipeContext {
  /** An https git URL of this project, when package.json names one. */
  readonly repository?: string | undefined;
}

/** package.json's `repository` as an https URL git can clone, or undefined: never a guess. */
export function projectRepository (root = projectRoot()): string | undefined {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository?: string | { url?: string } };
  const declared = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  if (declared === undefined) return undefined;
  // npm's shorthands: "owner/name" and "github:owner/name" mean GitHub.
  const shorthand = /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(declared)?.[1];
  const url = shorthand === undefined ? declared.replace(/^git\+/, '') : `https://github.com/${shorthand}.git`;
  return URL.canParse(url) && new URL(url).protocol === 'https:' ? url : undefined;
}

/** A word the shell reads as itself, whatever it holds. */
export function shellQuote (text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * The README's openssl recipe (section "Verify a registry") for this server's key, and the CLI
 * for those with a checkout. The DER header in front of the raw key comes from node:crypto's own
 * SPKI encoding of the key, as printf octal escapes (which every POSIX printf reads).
 */
export function verificationRecipes (publicKey: string, { repository }: RecipeContext = {}): VerificationRecipes {
  const raw = decodePublicKey(publicKey);
  const spki = raw === undefined ? Buffer.alloc(0) : publicKeyObject(raw).export({ format: 'der', type: 'spki' });
  const header = [...spki.subarray(0, spki.length - 32)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
  return {
    openssl: [
      `BASE=${BASE_URL_PLACEHOLDER}`,
      'curl -s "$BASE/registry" -o registry.signed.json',
      'curl -s "$BASE/registry/signature" -o signature.json',
      `PUBKEY=${publicKey}`,
      'sed -E \'s/.*"signature":"([^"]+)".*/\\1/\' signature.json | base64 -d > signature.bin',
      `printf '%s====' "$PUBKEY" | tr '${ZBASE32_ALPHABET}' '${RFC4648_BASE32}' | base32 -d > key.raw`,
      `{ printf '${header}'; cat key.raw; } | openssl pkey -pubin -inform DER -out key.pem`,
      'openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in registry.signed.json -sigfile signature.bin',
      'sha256sum registry.signed.json',
    ],
    cli: [
      ...(repository === undefined ? [] : [`git clone ${shellQuote(repository)} three-good-sources`, 'cd three-good-sources']),
      'npm install',
      `npx three-good-sources verify ${BASE_URL_PLACEHOLDER} --pubkey ${publicKey}`,
    ],
  };
}

function verificationSteps (recipes: VerificationRecipes, sha256: string, context: RecipeContext): string[] {
  const replace = ` (replace ${BASE_URL_PLACEHOLDER} with the address you reach this server at: its /mcp URL without /mcp)`;
  const fetch = context.repository === undefined
    ? 'from a checkout of this project (the package is not published on npm), inside the checkout'
    : 'which is not published on npm: fetch the project and install it';
  return [
    `1. With openssl 3 and coreutils alone, in an empty folder${replace}:`,
    ...recipes.openssl.map((command) => `   ${command}`),
    `   openssl prints "Signature Verified Successfully" and sha256sum prints ${sha256}, the SHA-256 above.`,
    `2. With our command-line tool, ${fetch}:`,
    ...recipes.cli.map((command) => `   ${command}`),
    "   It fetches GET /registry, /registry/signature and /registry/history, checks the digest, the Ed25519 signature and every history entry's signature and link, and prints one OK line or what failed; add --known FILE to detect a rewritten history or a replayed older version next time.",
    'A signature only proves who signed if you got the public key from the curator by another channel: compare it with the key the curator publishes.',
  ];
}

/** Said plainly, so that an unsigned registry never reads as signed by a curator. */
export const SIGNED_BY: Readonly<Record<SigningMode, string>> = {
  curator: 'the curator, offline (a curator-signed registry: this server only verifies it and holds no secret key)',
  server: "this server, with the curator's secret key its operator configured (server-side signing)",
  ephemeral:
    'a key this server made at start-up, for development: no curator signed this registry, and the key and signatures change when the server restarts',
};

/** What get_provenance answers, as typed data: the tool's structured content, and what the page shows. */
export interface ProvenanceFacts {
  readonly curator: { readonly name: string; readonly pubkey: string };
  readonly registry: { readonly version: string; readonly updated: string; readonly categories: number };
  readonly endorsements: number;
  readonly signature: {
    readonly algorithm: typeof ALGORITHM;
    readonly canonicalization: typeof CANONICALIZATION;
    readonly sha256: string;
    readonly signature: string;
    readonly ephemeralKey: boolean;
    readonly signedBy: SigningMode;
  };
  readonly history: { readonly entries: number; readonly latest: { readonly version: string; readonly date: string } | null };
  readonly verification: readonly string[];
  readonly recipes: VerificationRecipes;
}

/** What provenance facts are read from: the served registry, how it is signed, its history (oldest first). */
export interface ProvenanceSource {
  readonly registry: Registry;
  readonly signed: SignedRegistry;
  readonly history: readonly HistoryEntry[];
}

export function provenanceFacts ({ registry, signed, history }: ProvenanceSource): ProvenanceFacts {
  const latest = history[history.length - 1];
  // A tool answer does not know the URL it was reached at; the recipe says what to fill in.
  const context: RecipeContext = { repository: projectRepository() };
  const recipes = verificationRecipes(signed.publicKey, context);
  return {
    curator: { name: registry.curator.name, pubkey: signed.publicKey },
    registry: { version: registry.version, updated: registry.updated, categories: Object.keys(registry.categories).length },
    endorsements: registry.endorsements.length,
    signature: {
      algorithm: ALGORITHM,
      canonicalization: CANONICALIZATION,
      sha256: signed.sha256,
      signature: signed.signature,
      ephemeralKey: signed.mode === 'ephemeral',
      signedBy: signed.mode,
    },
    history: { entries: history.length, latest: latest === undefined ? null : { version: latest.version, date: latest.date } },
    verification: verificationSteps(recipes, signed.sha256, context),
    recipes,
  };
}

/** The same facts in the start-up log line's few words, for operators (SIGNED_BY is the sentence agents and people read). */
export const SIGNING_IN_LOG: Readonly<Record<SigningMode, string>> = {
  curator: 'signed by the curator (verified; this server holds no secret key) with',
  server: 'signed here with the curator key',
  ephemeral: 'signed with an EPHEMERAL key (development: no curator signed it)',
};
