import { readFile } from 'node:fs/promises';
import { buildMatcher } from '../matcher/matcher.js';
import { isPlaceholder } from '../provenance/curator.js';
import { decodePublicKey } from '../provenance/keys.js';
import type { Registry } from '../registry/types.js';
import { validateRegistry } from '../registry/validate.js';
import { type CliIo } from './io.js';

export const CHECK_USAGE = 'check <registry.json> [--strict]   validate a registry with the server\'s rules and lint it (--strict: warnings fail too)';

/** Problems that stop the server, beyond the schema: key formats and self-endorsement. */
function keyProblems(registry: Registry): string[] {
  const problems: string[] = [];
  const curator = registry.curator.pubkey;
  if (!isPlaceholder(curator) && decodePublicKey(curator) === undefined) {
    problems.push('curator.pubkey: must be a z-base-32 Ed25519 public key (52 characters), or empty to take the server\'s key');
  }
  registry.endorsements.forEach((e, i) => {
    if (decodePublicKey(e.pubkey) === undefined) problems.push(`endorsements.${i}.pubkey: must be a z-base-32 Ed25519 public key`);
    else if (e.pubkey === curator) problems.push(`endorsements.${i}.pubkey: a curator cannot endorse itself`);
  });
  return problems;
}

/** What the server accepts but a curator should look at. */
export function lint(registry: Registry): string[] {
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  for (const [slug, c] of Object.entries(registry.categories)) {
    c.sources.forEach((s, i) => {
      const other = seen.get(s.url);
      if (other !== undefined && other !== slug) warnings.push(`categories.${slug}.sources.${i}.url: also a source of ${other} (${s.url})`);
      seen.set(s.url, slug);
    });
  }
  const matcher = buildMatcher(registry, 0);
  for (const [slug, c] of Object.entries(registry.categories)) {
    c.queryPatterns.forEach((pattern, i) => {
      const m = matcher.match(pattern, 0);
      if (m.kind === 'match' && m.slug !== slug) {
        warnings.push(`categories.${slug}.queryPatterns.${i}: "${pattern}" matches ${m.slug} better (score ${m.score.toFixed(3)})`);
      } else if (m.kind === 'no-match') {
        warnings.push(`categories.${slug}.queryPatterns.${i}: "${pattern}" matches no category`);
      }
    });
  }
  return warnings;
}

export async function check(args: readonly string[], io: CliIo): Promise<number> {
  const strict = args.includes('--strict');
  const files = args.filter((a) => a !== '--strict');
  if (files.length !== 1) {
    io.err(`usage: three-good-sources ${CHECK_USAGE}`);
    return 1;
  }
  const file = files[0]!;
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    io.err(code ? `FAIL ${file}: cannot read the file (${code})` : `FAIL ${file}: not valid JSON (${(err as Error).message})`);
    return 1;
  }
  const result = validateRegistry(data);
  const problems = result.ok ? keyProblems(result.registry) : result.problems;
  if (!result.ok || problems.length > 0) {
    for (const p of problems) io.err(`error ${p}`);
    io.err(`FAIL ${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; the server would refuse to start`);
    return 1;
  }
  const warnings = lint(result.registry);
  for (const w of warnings) io.out(`warning ${w}`);
  const categories = Object.keys(result.registry.categories).length;
  io.out(`${warnings.length > 0 && strict ? 'FAIL' : 'OK'} ${file}: ${categories} categories, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`);
  return warnings.length > 0 && strict ? 1 : 0;
}
