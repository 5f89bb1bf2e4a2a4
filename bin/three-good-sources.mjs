#!/usr/bin/env node
// The `three-good-sources` command. In a checkout (src/ beside dist/), dist/ is built first when
// the sources changed since the last build (npm install runs no build script); a packed install
// ships dist/ built and goes straight to it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (existsSync(join(root, 'src')) && existsSync(join(root, 'scripts', 'build.mjs'))) {
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import(pathToFileURL(join(root, 'dist', 'src', 'cli', 'main.js')).href);
