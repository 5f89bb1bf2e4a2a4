import { DEFAULT_THRESHOLD } from '../matcher/matcher.js';
import { curatorKeyProblems } from '../provenance/curator.js';
import { readRegistry } from '../registry/load.js';
import { rulesFromEnv, type CliIo } from './io.js';
import { lint } from './lint.js';

export const CHECK_USAGE =
  'check <registry.json> [--strict]   validate a registry with the server\'s rules and lint it (--strict: warnings fail too; query patterns are judged at MATCH_THRESHOLD, as the server would)';

/** The server's threshold: MATCH_THRESHOLD when set (empty means default, as for the server). */
function matchThreshold(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return DEFAULT_THRESHOLD;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : undefined;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The server's own load (without a server key), then the lints. Errors exit 1; warnings only with --strict. */
export async function check(args: readonly string[], io: CliIo): Promise<number> {
  const strict = args.includes('--strict');
  const files = args.filter((a) => a !== '--strict');
  if (files.length !== 1) {
    io.err(`usage: three-good-sources ${CHECK_USAGE}`);
    return 1;
  }
  const file = files[0]!;
  const result = await readRegistry(file, rulesFromEnv());
  const problems = result.ok ? curatorKeyProblems(result.registry) : result.problems;
  if (!result.ok || problems.length > 0) {
    for (const p of problems) io.err(`error ${p}`);
    io.err(`FAIL ${file}: ${plural(problems.length, 'problem')}; the server would refuse to start`);
    return 1;
  }
  const threshold = matchThreshold(process.env.MATCH_THRESHOLD);
  if (threshold === undefined) {
    io.err(`error MATCH_THRESHOLD must be a number from 0 to 1, as for the server`);
    return 1;
  }
  const warnings = lint(result.registry, threshold);
  for (const w of warnings) io.out(`warning ${w}`);
  const failed = warnings.length > 0 && strict;
  io.out(`${failed ? 'FAIL' : 'OK'} ${file}: ${plural(Object.keys(result.registry.categories).length, 'category', 'categories')}, ${plural(warnings.length, 'warning')}`);
  return failed ? 1 : 0;
}
