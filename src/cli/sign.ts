import { basename } from 'node:path';
import semver from 'semver';
import { canonicalBytes, sha256Hex } from '../provenance/canonical.js';
import { NO_REGISTRY, describeChange, registryChanges } from '../provenance/changes.js';
import { curatorKeyProblems } from '../provenance/curator.js';
import { checkHistory, entryHash, formatHistory, isNote, MAX_NOTE_LENGTH, signEntry, type HistoryEntry } from '../provenance/history.js';
import type { CuratorKey } from '../provenance/keys.js';
import { FileUnreadable, readIfPresent, signedFiles, type SignedFiles } from '../provenance/signed-files.js';
import { signatureDocument, signatureDocumentBytes, signRegistry } from '../provenance/signature.js';
import { readRegistry } from '../registry/load.js';
import { parseJson } from '../registry/parse-json.js';
import { validateRegistry } from '../registry/validate.js';
import type { Registry } from '../registry/types.js';
import { writeFileAtomic } from '../util/write-atomic.js';
import { rulesFromEnv, takeOption, type CliIo } from './io.js';
import { readKeyFile } from './key-file.js';

export const SIGN_USAGE =
  'sign [registry.json] --key FILE [--note TEXT]   check the registry, sign it as its curator and append a history entry (with the note, if given, saying where the changes came from) (writes <name>.signature.json, <name>.history.json and <name>.signed.json beside it)';

class Refusal extends Error {}

/** Now, to the second, as history dates are written. */
function now (): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The history so far, checked with the signing key: a broken one is never extended. */
async function existingHistory (files: SignedFiles, key: CuratorKey): Promise<readonly HistoryEntry[]> {
  const bytes = await readIfPresent(files.history);
  if (bytes === undefined) {
    if ((await readIfPresent(files.signature)) !== undefined) {
      throw new Refusal(`${basename(files.history)} is missing but ${basename(files.signature)} exists: restore the history rather than start a new one`);
    }
    return [];
  }
  const history = checkHistory(bytes.toString('utf8'), key.publicKey);
  if (!history.ok) throw new Refusal(`${basename(files.history)} does not verify, so it is not extended: ${history.problem}`);
  return history.entries;
}

/** The registry the newest entry signed, from the copy sign keeps, checked against the entry. */
async function lastSigned (files: SignedFiles, head: HistoryEntry): Promise<Registry> {
  const bytes = await readIfPresent(files.signed);
  const name = basename(files.signed);
  if (bytes === undefined || sha256Hex(bytes) !== head.sha256) {
    throw new Refusal(
      `cannot tell what changed since ${head.version}: ${name} (the copy of the last signed registry) is ${bytes === undefined ? 'missing' : 'not the one the history names'}; restore it, e.g. curl -s <server>/registry -o ${name} from a server that serves ${head.version}`
    );
  }
  const parsed = parseJson(bytes.toString('utf8'));
  if (!parsed.ok) throw new Refusal(`${name} is not the registry it should be: ${parsed.problem}`);
  const check = validateRegistry(parsed.value, rulesFromEnv());
  if (!check.ok) throw new Refusal(`${name} no longer passes the registry rules: ${check.problems[0]}`);
  return check.registry;
}

async function writeSignature (files: SignedFiles, registry: Registry, key: CuratorKey): Promise<void> {
  const signed = signRegistry(registry, key, 'curator');
  await writeFileAtomic(files.signature, signatureDocumentBytes(signatureDocument(signed)));
  await writeFileAtomic(files.signed, signed.canonical);
}

/**
 * The curator's offline signature: checks the registry with every rule, refuses a version not
 * above the last signed one, then appends a signed history entry and writes the signature and
 * a copy of the signed bytes, each file whole or not at all. The history goes first: if a
 * later write fails, running sign again finishes the job.
 */
export async function sign (args: readonly string[], io: CliIo): Promise<number> {
  const { value: keyFile, rest: afterKey } = takeOption(args, 'key');
  const { value: note, rest } = takeOption(afterKey, 'note');
  if (keyFile === undefined || rest.length > 1 || rest.some((a) => a.startsWith('--')) || (afterKey.includes('--note') && note === undefined)) {
    io.err(`usage: three-good-sources ${SIGN_USAGE}`);
    return 1;
  }
  const file = rest[0] ?? 'registry.json';
  const refuse = (line: string): number => {
    io.err(`FAIL ${line}; nothing was signed`);
    return 1;
  };
  if (note !== undefined && !isNote(note)) return refuse(`--note must be one line of 1 to ${MAX_NOTE_LENGTH} characters without control characters`);
  const keyRead = await readKeyFile(keyFile);
  if (!keyRead.ok) return refuse(keyRead.problem);
  const key = keyRead.key;
  const read = await readRegistry(file, rulesFromEnv());
  if (!read.ok) {
    for (const p of read.problems) io.err(`error ${p}`);
    return refuse(`${file} breaks the registry rules`);
  }
  const registry = read.registry;
  if (registry.curator.pubkey !== key.publicKey) {
    return refuse(
      registry.curator.pubkey === ''
        ? `${file}: curator.pubkey is empty; write this key's public key there first: "pubkey": "${key.publicKey}"`
        : `${file}: curator.pubkey is ${registry.curator.pubkey}, but ${keyFile} is the key of ${key.publicKey}`
    );
  }
  const problems = curatorKeyProblems(registry, key.publicKey);
  if (problems.length > 0) {
    for (const p of problems) io.err(`error ${p}`);
    return refuse(`${file} breaks the registry rules`);
  }

  const files = signedFiles(file);
  try {
    const history = await existingHistory(files, key);
    const head = history[history.length - 1];
    const sha256 = sha256Hex(canonicalBytes(registry));
    if (head !== undefined && head.sha256 === sha256 && head.version === registry.version) {
      await writeSignature(files, registry, key);
      io.out(`registry ${registry.version} is already the newest signed version (${head.date}); wrote ${basename(files.signature)} and ${basename(files.signed)} again`);
      return 0;
    }
    if (head !== undefined && !semver.gt(registry.version, head.version)) {
      return refuse(`version ${registry.version} is not greater than the last signed version ${head.version}: raise "version" in ${file} (semantic versioning, e.g. ${semver.inc(head.version, 'patch')})`);
    }
    const date = now();
    if (head !== undefined && date < head.date) return refuse(`this machine's clock (${date}) is before the last entry's date (${head.date})`);
    const previous = head === undefined ? NO_REGISTRY : await lastSigned(files, head);
    const changes = registryChanges(previous, registry);
    const previousHash = head === undefined ? null : entryHash(head);
    const entry = signEntry({ version: registry.version, date, sha256, previous: previousHash, changes, ...(note === undefined ? {} : { note }) }, key);
    await writeFileAtomic(files.history, formatHistory([...history, entry]));
    await writeSignature(files, registry, key);

    io.out(`signed registry ${registry.version} (sha256 ${sha256}) as ${key.publicKey}`);
    io.out(head === undefined ? 'first signed version:' : `changes since ${head.version}:`);
    for (const c of changes) io.out(`  ${describeChange(c)}`);
    if (changes.length === 0) io.out('  none but the version');
    if (note !== undefined) io.out(`note: ${note}`);
    io.out(`wrote ${basename(files.history)} (${history.length + 1} ${history.length === 0 ? 'entry' : 'entries'}), ${basename(files.signature)} and ${basename(files.signed)}`);
    io.out(`publish ${basename(file)}, ${basename(files.signature)} and ${basename(files.history)} together; the server verifies them with CURATOR_PUBKEY=${key.publicKey}`);
    return 0;
  } catch (err) {
    if (err instanceof Refusal || err instanceof FileUnreadable) return refuse(err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined) throw err;
    // Each file is whole or untouched; a history written without its signature is finished by running sign again.
    io.err(`FAIL cannot write beside ${file} (${code}); run sign again once it can`);
    return 1;
  }
}
