import { readFile } from 'node:fs/promises';
import { StartupError } from '../errors.js';
import type { Registry } from './types.js';
import { validateRegistry } from './validate.js';

/** A registry that cannot be served; its message lists every problem, one `path: rule` per line. */
export class RegistryError extends StartupError {
  readonly problems: readonly string[];
  constructor(file: string, problems: readonly string[]) {
    super('THREEGS_REGISTRY', `invalid registry ${file}:\n  ${problems.join('\n  ')}`);
    this.name = 'RegistryError';
    this.problems = problems;
  }
}

/** Reads, parses and validates a registry file. Throws RegistryError, never anything rawer. */
export async function loadRegistry(file: string): Promise<Registry> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    throw new RegistryError(file, [`registry: cannot read the file (${code})`]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new RegistryError(file, [`registry: not valid JSON (${(err as Error).message})`]);
  }
  const check = validateRegistry(data);
  if (!check.ok) throw new RegistryError(file, check.problems);
  return check.registry;
}
