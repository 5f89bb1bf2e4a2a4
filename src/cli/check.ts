import { DEFAULT_THRESHOLD, MIN_MARGIN } from '../matcher/matcher.js';
import { curatorKeyProblems } from '../provenance/curator.js';
import { readRegistry } from '../registry/load.js';
import { buildMatcher, type Explanation } from '../matcher/matcher.js';
import { meaningFromEnv, rulesFromEnv, takeOption, type CliIo } from './io.js';
import { checkLinks } from './links.js';
import { ignoredWordsOf, lint } from './lint.js';
import { STOP_WORDS } from '../matcher/stop-words.js';

export const CHECK_USAGE =
  'check <registry.json> [--strict] [--query TEXT] [--links] | check --ignored-words   validate a registry with the server\'s rules and lint it (--strict: warnings fail too; query patterns are judged at MATCH_THRESHOLD, as the server would); --query: what the matcher answers for TEXT on this file, and which words decided it; --links: visit every source URL and report dead links, moves to another site and TLS failures; --ignored-words: the words the matcher ignores, in queries and registries alike';

/** The server's threshold: MATCH_THRESHOLD when set (empty means default, as for the server). */
function matchThreshold (text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return DEFAULT_THRESHOLD;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : undefined;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The runner-up and the margin; a margin under MIN_MARGIN was answered only because the query names the leader. */
function runnerUpLine (score: number, runnerUp: { slug: string; score: number } | null): string {
  if (runnerUp === null) return 'none';
  const margin = Math.round((score - runnerUp.score) * 1000) / 1000;
  const why = margin < MIN_MARGIN ? `; answered though closer than ${MIN_MARGIN}: the query names it (a keyword or a word of its name), not the runner-up` : '';
  return `${runnerUp.slug} (score ${runnerUp.score.toFixed(3)}, margin ${margin.toFixed(3)}${why})`;
}

/** What a curator reads to see why a query got its answer, one fact per line. */
function explainQuery ({ outcome, forCategory, notCounted, against, unknown, outOfScope }: Explanation, query: string, io: CliIo): void {
  io.out(`query: ${JSON.stringify(query.length > 200 ? `${query.slice(0, 197)}...` : query)}`);
  if (outcome.kind === 'match') {
    io.out(`match: ${outcome.slug} (score ${outcome.score.toFixed(3)})`);
    io.out(`runner-up: ${runnerUpLine(outcome.score, outcome.runnerUp)}`);
  } else {
    const why =
      outcome.reason === 'too-close'
        ? `the best two are within ${MIN_MARGIN} of each other (runner-up ${outcome.contender.slug} with score ${outcome.contender.score.toFixed(3)})`
        : {
            'empty-query': 'no words to match',
            'too-long': 'longer than 1,000 characters once normalised',
            'below-threshold': `below the threshold ${outcome.threshold}`,
            'too-vague': 'a single everyday word, too vague to answer',
          }[outcome.reason];
    io.out(`no match: ${why}; closest: ${outcome.closest === null ? 'none' : `${outcome.closest.slug} (score ${outcome.closest.score.toFixed(3)})`}`);
    io.out(`candidates named: ${outcome.candidates.length === 0 ? 'none' : outcome.candidates.map((c) => `${c.slug} (score ${c.score.toFixed(3)}${c.similarity === undefined ? '' : `, similarity ${c.similarity.toFixed(3)}`})`).join(', ')}`);
  }
  const inPhrase = new Set(forCategory.filter((w) => w.inPhrase === true).map((w) => w.word));
  const ignored = ignoredWordsOf(query).filter((w) => !inPhrase.has(w));
  io.out(`words ignored (see check --ignored-words): ${ignored.length === 0 ? 'none' : ignored.join(', ')}`);
  const shown = forCategory.map((w) => `${w.word}${w.corrected === undefined ? '' : ` (read as ${w.corrected})`} ${w.weight.toFixed(2)}${w.inPhrase === true ? ' in its phrase' : w.keyword ? ' keyword' : ''}`);
  io.out(`words for it: ${shown.length === 0 ? 'none' : shown.join(', ')}`);
  if (notCounted.length > 0) io.out(`its words not counted (only inside a keyword phrase the query does not hold whole): ${notCounted.join(', ')}`);
  io.out(`words for other categories only (against it): ${against.length === 0 ? 'none' : against.join(', ')}`);
  io.out(`words no category knows (against every category): ${unknown.length === 0 ? 'none' : unknown.join(', ')}`);
  const scope = [...outOfScope].map(([slug, entries]) => `${slug} (not about ${entries.map((e) => JSON.stringify(e)).join(', ')})`);
  io.out(`out of scope: ${scope.length === 0 ? 'none' : scope.join('; ')}`);
}

/** The server's own load (without a server key), then the lints. Errors exit 1; warnings only with --strict. */
export async function check (argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 1 && argv[0] === '--ignored-words') {
    io.out([...STOP_WORDS].sort().join(' '));
    io.out('(and every single letter; a hyphened letter joins its word: "z-wave" is "zwave")');
    return 0;
  }
  const { value: query, rest: args } = takeOption(argv, 'query');
  if (argv.includes('--query') && query === undefined) {
    io.err(`usage: three-good-sources ${CHECK_USAGE}`);
    return 1;
  }
  const strict = args.includes('--strict');
  const links = args.includes('--links');
  const files = args.filter((a) => a !== '--strict' && a !== '--links');
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
    io.err('error MATCH_THRESHOLD must be a number from 0 to 1, as for the server');
    return 1;
  }
  if (query !== undefined) {
    // As the server names candidates: with the semantic stage unless SEMANTIC_STAGE=off.
    explainQuery(buildMatcher(result.registry, threshold, { meaning: meaningFromEnv() }).explain(query), query, io);
    return 0;
  }
  // Link rot is a warning like the lints: the server would still serve the file.
  const report = links ? await checkLinks(result.registry) : undefined;
  const warnings = [...lint(result.registry, threshold), ...(report?.problems ?? []).map((l) => `link ${l}`), ...(report?.offline === undefined ? [] : [`links: ${report.offline}`])];
  for (const w of warnings) io.out(`warning ${w}`);
  const failed = warnings.length > 0 && strict;
  const unchecked = report?.offline === undefined ? '' : ' (links not checked: nothing could be reached)';
  io.out(`${failed ? 'FAIL' : 'OK'} ${file}: ${plural(Object.keys(result.registry.categories).length, 'category', 'categories')}, ${plural(warnings.length, 'warning')}${unchecked}`);
  return failed ? 1 : 0;
}
