import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'three-good-sources';

/**
 * The folder holding our package.json. Found by walking up because this file runs both from
 * src/ (tests, tsx) and from dist/src/ (production), at different depths.
 */
export function projectRoot (start = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === PACKAGE_NAME) return dir;
    } catch {
      // no package.json here: keep climbing
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package.json above ${start}`);
    dir = parent;
  }
}

/** This server's version, from package.json. */
export function packageVersion (root = projectRoot()): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** The name this server is listed under in the MCP Registry (package.json's mcpName, as the registry checks it). */
export function registryName (root = projectRoot()): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { mcpName: string };
  return pkg.mcpName;
}
