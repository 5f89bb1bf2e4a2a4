import { readFile } from 'node:fs/promises';
import { StartupError } from '../errors.js';
import { parseJson } from './parse-json.js';
import { WHOLE_REGISTRY } from './paths.js';
import type { Registry } from './types.js';
import { validateRegistry, type RegistryCheck, type RegistryRules } from './validate.js';

/** A registry that cannot be served; its message lists every problem, one `path: rule` per line. */
export class RegistryError extends StartupError {
  readonly problems: readonly string[];
  constructor (file: string, problems: readonly string[]) {
    super('THREEGS_REGISTRY', `invalid registry ${file}:\n  ${problems.join('\n  ')}`);
    this.name = 'RegistryError';
    this.problems = problems;
  }
}

// Strict: a registry saved in another encoding is refused, not signed and served with U+FFFD in it.
// ignoreBOM keeps a byte-order mark in the text, where parse-json names it.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads, parses and validates a registry file. Problems name places and rules, never the
 * file's contents: a secret file named by mistake is not echoed to a terminal or a log.
 */
export async function readRegistry (file: string, rules: RegistryRules = {}): Promise<RegistryCheck> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    return { ok: false, problems: [`${WHOLE_REGISTRY}: cannot read the file (${code})`] };
  }
  return registryFromBytes(bytes, rules);
}

/** A registry's bytes (a file's, or a download's) decoded, parsed and validated as readRegistry does. */
export function registryFromBytes (bytes: Uint8Array, rules: RegistryRules = {}): RegistryCheck {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { ok: false, problems: [`${WHOLE_REGISTRY}: not UTF-8 text (save the file as UTF-8)`] };
  }
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, problems: parsed.problems.map((p) => `${WHOLE_REGISTRY}: ${p}`) };
  return validateRegistry(parsed.value, rules);
}

/** readRegistry for the server: throws RegistryError, never anything rawer. */
export async function loadRegistry (file: string, rules: RegistryRules = {}): Promise<Registry> {
  const check = await readRegistry(file, rules);
  if (!check.ok) throw new RegistryError(file, check.problems);
  return check.registry;
}
