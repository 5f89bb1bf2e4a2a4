import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { DemandReport } from '../demand/report.js';
import { demandReportProblem } from '../demand/report-shape.js';
import { buildMatcher, type ReadingCache } from '../matcher/matcher.js';
import { readRegistry } from '../registry/load.js';
import type { Registry } from '../registry/types.js';
import type { WordVectors } from '../semantic/word-vectors.js';
import { writeFileAtomic } from '../util/write-atomic.js';
import { answeredBySlug, applySuggestion, declinedBySlug, goesWrong, judgeOn, suggestionsFrom, takeAll, unknownSlugs, type Judged, type Suggestion } from '../triage/suggest.js';
import { DEFAULT_TIMEOUT_S, fetchDemandReport, visible } from './demand.js';
import { meaningFromEnv, rulesFromEnv, takeOption, type CliIo } from './io.js';
import { lint } from './lint.js';

export const TRIAGE_USAGE =
  'triage <registry.json> (--demand <url> --token-file <file> | --demand-file <report.json>) [--accept-all --out <file> | --json]   ' +
  'turn what agents asked into registry edits, each with what it would change: one at a time in a terminal (accept, edit, not-about, skip), ' +
  'all at once (--accept-all), or as JSON';

type Source = { readonly file: string } | { readonly url: string; readonly tokenFile: string };

/** The report, from a file (`demand --json`) or a server; undefined, with one line said, when it cannot be read. */
async function reportFrom (source: Source, io: CliIo): Promise<DemandReport | undefined> {
  if ('url' in source) return fetchDemandReport(source.url, source.tokenFile, DEFAULT_TIMEOUT_S, io);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(source.file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    io.err(code === undefined ? `${source.file} is not JSON: save the output of demand --json` : `cannot read ${source.file} (${code})`);
    return undefined;
  }
  const problem = demandReportProblem(value);
  if (problem !== undefined) {
    io.err(`${source.file} is not a demand report (${visible(problem).slice(0, 200)}): save the output of demand --json`);
    return undefined;
  }
  return value as DemandReport;
}

/** One suggestion and its consequences, as a curator reads them. */
function describe ({ suggestion: s, consequence: c, skipped }: Judged): string[] {
  const what = s.kind === 'example-question' ? 'add the example question' : 'add the not-about entry';
  const asked = `asked by ${s.clients} clients, ${s.asks} times`;
  const lines = [`${s.slug}: ${what} "${s.text}" (${s.from === undefined ? asked : `it answered "${s.from}", ${asked}: is that its topic?`})`];
  const quoted = (list: readonly string[]) => (list.length > 0 ? `: ${list.map((q) => `"${q}"`).join(', ')}` : '');
  if (c === undefined) {
    // Skipped before it was judged (see takeAll).
  } else if (s.kind === 'example-question') lines.push(`  would answer ${c.answers.length} declined question${c.answers.length === 1 ? '' : 's'}${quoted(c.answers)}`);
  else lines.push(`  would turn away ${c.turnsAway.length} question${c.turnsAway.length === 1 ? '' : 's'} it answered${quoted(c.turnsAway)}`);
  for (const m of c?.moves ?? []) lines.push(`  moves the example question "${m.question}" of ${m.of} from ${m.from || 'a decline'} to ${m.to || 'a decline'}`);
  if (skipped !== undefined) {
    const why = {
      'answers-nothing': 'it answers no declined question but its own',
      'breaks-examples': 'an example question would go wrong',
      'adds-warnings': 'check would warn',
      'needs-curator': 'whether an answer was wrong is for the curator to judge',
      'by-curator': 'skipped',
    }[skipped];
    lines.push(`  not taken: ${why}`);
  }
  return lines;
}

/** The registry as JSON, written whole or not at all. */
async function writeRegistry (file: string, registry: Registry, io: CliIo): Promise<boolean> {
  try {
    await writeFileAtomic(file, `${JSON.stringify(registry, null, 2)}\n`);
    return true;
  } catch (err) {
    io.err(`cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'write error'}): nothing written`);
    return false;
  }
}

/** What the curator took, for the signing that follows: how many questions from demand, in how many categories. */
function summary (before: Registry, after: Registry, judged: readonly Judged[]): string {
  const taken = judged.filter((j) => j.skipped === undefined);
  const questions = new Set(taken.flatMap((j) => j.consequence?.answers ?? [])).size;
  const categories = new Set(taken.map((j) => j.suggestion.slug)).size;
  const changed = Object.keys(after.categories).filter((slug) => after.categories[slug] !== before.categories[slug]).length;
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  return `from demand: ${n(questions, 'question', 'questions')}, ${n(categories, 'category', 'categories')} (${taken.length} of ${judged.length} suggestions taken, ${n(changed, 'category', 'categories')} changed)`;
}

/** The last lines: what was written, and the signing that records where its changes came from. */
function written (before: Registry, after: Registry, judged: readonly Judged[], out: string): string[] {
  const line = summary(before, after, judged);
  const note = line.slice(0, line.indexOf(' ('));
  return [`${line}; written to ${out}`, `check it, then sign it with its note: three-good-sources sign ${out} --key <your key file> --note "${note}"`];
}

/** `three-good-sources triage`: see TRIAGE_USAGE. */
export async function triage (argv: readonly string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  const acceptAll = argv.includes('--accept-all');
  const flags = argv.filter((a) => a !== '--json' && a !== '--accept-all');
  const { value: url, rest: a1 } = takeOption(flags, 'demand');
  const { value: tokenFile, rest: a2 } = takeOption(a1, 'token-file');
  const { value: file, rest: a3 } = takeOption(a2, 'demand-file');
  const { value: out, rest } = takeOption(a3, 'out');
  const fromServer = url !== undefined && tokenFile !== undefined && file === undefined;
  const source: Source | undefined = file !== undefined && url === undefined ? { file } : fromServer ? { url, tokenFile } : undefined;
  if (rest.length !== 1 || source === undefined || (acceptAll && out === undefined) || (json && acceptAll)) {
    io.err(`usage: three-good-sources ${TRIAGE_USAGE}`);
    return 1;
  }
  const oneAtATime = !json && !acceptAll;
  if (oneAtATime && (out === undefined || process.stdin.isTTY !== true)) {
    io.err(out === undefined ? 'give --out <file> for the registry you accept into' : 'one at a time needs a terminal: use --accept-all --out <file> or --json');
    return 1;
  }
  const loaded = await readRegistry(rest[0]!, rulesFromEnv());
  if (!loaded.ok) {
    io.err(`${rest[0]} fails check (${loaded.problems.length} problem${loaded.problems.length === 1 ? '' : 's'}, first: ${loaded.problems[0]}): run check and fix it first`);
    return 1;
  }
  const report = await reportFrom(source, io);
  if (report === undefined) return 1;
  const foreign = unknownSlugs(loaded.registry, report);
  if (foreign.length > 0) {
    io.err(`the report names categories ${rest[0]} does not have (${foreign.slice(0, 5).join(', ')}): it comes from another registry`);
    return 1;
  }
  const registry = loaded.registry;
  const meaning = meaningFromEnv();
  if (oneAtATime) return interactive(registry, report, out!, meaning, io);
  const warnings = lint(registry).length;
  const { registry: edited, judged } = takeAll(registry, report, { meaning, acceptable: (r) => lint(r).length <= warnings, judgeAll: json });
  if (json) {
    io.out(JSON.stringify({ suggestions: judged }, null, 2));
    return 0;
  }
  if (!(await writeRegistry(out!, edited, io))) return 1;
  for (const j of judged) for (const line of describe(j)) io.out(line);
  for (const line of written(registry, edited, judged, out!)) io.out(line);
  return 0;
}

/** One suggestion at a time in a terminal: accept, edit its text, make it a not-about entry, skip, or quit. */
async function interactive (
  registry: Registry,
  report: DemandReport,
  out: string,
  meaning: WordVectors | undefined,
  io: CliIo
): Promise<number> {
  const declined = declinedBySlug(report);
  const answered = answeredBySlug(report);
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  const readings: ReadingCache = new WeakMap();
  const matcher = buildMatcher(registry, undefined, { meaning, readings });
  let current = registry;
  // Rebuilt only when an accepted edit changes the registry.
  let judge = judgeOn(current, undefined, readings, matcher);
  const judged: Judged[] = [];
  try {
    for (const first of suggestionsFrom(registry, report, matcher, meaning !== undefined)) {
      let s: Suggestion = first;
      for (;;) {
        const consequence = judge(s, declined.get(s.slug) ?? [], answered.get(s.slug) ?? []);
        for (const line of describe({ suggestion: s, consequence })) io.out(line);
        if (consequence.moves.some(goesWrong)) io.out('  careful: an example question would go wrong');
        const answer = (await terminal.question('[a]ccept, [e]dit, [n]ot-about, [s]kip, [q]uit? ')).trim().toLowerCase();
        if (answer === 'q') return (await finish(registry, current, judged, out, io)) ? 0 : 1;
        if (answer === 'e') {
          s = { ...s, text: (await terminal.question('text: ')).trim() || s.text };
          continue;
        }
        if (answer === 'n') s = { ...s, kind: 'not-about' };
        const taken = answer === 'a' || answer === 'n';
        if (taken) {
          current = applySuggestion(current, s);
          judge = judge.after(s);
        }
        judged.push({ suggestion: s, consequence, ...(taken ? {} : { skipped: 'by-curator' as const }) });
        break;
      }
    }
    return (await finish(registry, current, judged, out, io)) ? 0 : 1;
  } finally {
    terminal.close();
  }
}

async function finish (before: Registry, after: Registry, judged: readonly Judged[], out: string, io: CliIo): Promise<boolean> {
  if (!(await writeRegistry(out, after, io))) return false;
  for (const line of written(before, after, judged, out)) io.out(line);
  return true;
}
