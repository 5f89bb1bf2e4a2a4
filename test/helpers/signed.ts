import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/run.js';
import { generateKey } from '../../src/provenance/keys.js';
import { signedFiles } from '../../src/provenance/signed-files.js';
import { SHIPPED_REGISTRY } from './build.js';

/** Runs the CLI in-process and returns its exit code and what it printed. */
export async function cli (...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A curator's folder: a fresh key, the shipped registry naming it, and the files sign writes. */
export interface CuratorFolder {
  readonly dir: string;
  readonly registry: string;
  readonly keyFile: string;
  readonly pubkey: string;
  readonly files: ReturnType<typeof signedFiles>;
  /** The registry file's text. */
  read(): Promise<string>;
  /** Rewrites the registry file through a text edit, as a curator with an editor would. */
  edit(change: (text: string) => string): Promise<void>;
  /** Runs `sign` on the folder's registry with its key. */
  sign(): ReturnType<typeof cli>;
}

export async function curatorFolder (): Promise<CuratorFolder> {
  const dir = await mkdtemp(join(tmpdir(), '3gs-curator-'));
  const { key, seed } = generateKey();
  const keyFile = join(dir, 'curator.key');
  await writeFile(keyFile, `${seed.toString('hex')}\n`, { mode: 0o600 });
  const registry = join(dir, 'registry.json');
  const shipped = await readFile(SHIPPED_REGISTRY, 'utf8');
  await writeFile(registry, shipped.replace('"pubkey": ""', `"pubkey": "${key.publicKey}"`));
  const folder: CuratorFolder = {
    dir,
    registry,
    keyFile,
    pubkey: key.publicKey,
    files: signedFiles(registry),
    read: () => readFile(registry, 'utf8'),
    edit: async (change) => writeFile(registry, change(await readFile(registry, 'utf8'))),
    sign: () => cli('sign', registry, '--key', keyFile),
  };
  return folder;
}

/** A new version: the version raised and, optionally, another text edit. */
export async function nextVersion (folder: CuratorFolder, version: string, change: (text: string) => string = (s) => s): Promise<void> {
  await folder.edit((text) => change(text.replace(/"version": "[^"]+"/, `"version": "${version}"`)));
}

/** A folder signed at 1.0.0 and then at 1.1.0 (rust-learning's rank 2, Rustlings, has a new "why"). */
export async function signedTwice (): Promise<CuratorFolder> {
  const folder = await curatorFolder();
  const first = await folder.sign();
  if (first.code !== 0) throw new Error(first.err);
  await nextVersion(folder, '1.1.0', (s) => s.replace(/("name": "Rustlings",[\s\S]*?"why": ")/, '$1Exercises first. '));
  const second = await folder.sign();
  if (second.code !== 0) throw new Error(second.err);
  return folder;
}
