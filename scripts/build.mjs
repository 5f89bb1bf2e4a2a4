#!/usr/bin/env node
// Builds dist/ from src/ and plugins/ with the TypeScript compiler, only when the sources changed
// since the last build (`--force`: always). `npm start`, `npm test`, every tap run (.taprc
// `before`, so a single test file run after an edit never tests stale code) and the bin launcher
// call it; the compiler takes tens of seconds on a small machine, the check a few milliseconds.
// Plain JavaScript with no dependencies: it must run before anything is built.
// npm start and npm test run this first: on a Node.js we do not support, the same one line as
// src/supported-node.ts (the server and CLI's check) and exit 1 at once, rather than a build and
// a test run that fail after minutes. Written here again because nothing is built yet.
{
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 12)) {
    process.stderr.write(`three-good-sources: needs Node.js 22 (22.12 or later) or 24; this is Node.js ${process.versions.node}\n`);
    process.exit(1);
  }
}
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWordVectors } from './word-vectors.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(root, 'dist', '.sources');
const ENTRY = join(root, 'dist', 'src', 'cli', 'main.js');

/** Every input of the build: the sources and the compiler settings. */
function inputs () {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  for (const dir of ['src', 'plugins']) walk(join(root, dir));
  files.push(join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json'));
  return files.sort();
}

/** What the sources are now: each file's path, size and modification time, hashed (a file added or removed counts too). */
function fingerprint () {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(root, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

// The semantic stage's word table is made once from its package (about 5 s), whatever the sources.
try {
  if (buildWordVectors(root, join(root, 'dist', 'word-vectors.bin'))) process.stderr.write('three-good-sources: made dist/word-vectors.bin (the semantic stage\'s word table)\n');
} catch (err) {
  process.stderr.write(`three-good-sources: cannot make dist/word-vectors.bin: ${err.message}\n`);
  process.exit(1);
}

const force = process.argv.includes('--force');
const now = fingerprint();
const built = existsSync(STAMP) && existsSync(ENTRY) ? readFileSync(STAMP, 'utf8').trim() : undefined;
if (!force && built === now) process.exit(0);

process.stderr.write(`three-good-sources: building dist/ (${built === undefined ? 'no build yet' : force ? 'asked for' : 'the sources changed since the last build'})\n`);
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (result.status !== 0) {
  process.stderr.write('three-good-sources: the build failed (see the compiler above); dist/ is not up to date\n');
  process.exit(result.status ?? 1);
}
chmodSync(ENTRY, 0o755);
writeFileSync(STAMP, `${now}\n`);
