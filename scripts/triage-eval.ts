/**
 * npm run eval:triage -- <folder>...: the demand loop measured (issue 32). Each folder holds a
 * registry.json and two labelled sets written from its category cards by someone else:
 * traffic.json, replayed as a month of traffic (each question asked by CLIENTS clients through
 * the real server, its demand signal and GET /demand), and held-out.json, never replayed. The
 * report goes through `triage --accept-all`'s own code (takeAll, with check's lint), and both
 * sets are measured on the registry before and after.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildApp } from '../src/app.js';
import { meaningFromEnv } from '../src/cli/io.js';
import { lint } from '../src/cli/lint.js';
import { loadConfig } from '../src/config.js';
import type { DemandReport } from '../src/demand/report.js';
import { buildMatcher } from '../src/matcher/matcher.js';
import { registryFromBytes } from '../src/registry/load.js';
import type { Registry } from '../src/registry/types.js';
import { takeAll } from '../src/triage/suggest.js';
import { evaluateRegistry, pooledReport } from './lib/evaluate.js';

// k counts distinct client buckets (64 a day): five clients fill five buckets only about 85% of the
// time, and the report then shows nothing at all; eight make that all but certain.
const CLIENTS = 8;
const TOKEN = 'triage-eval-token-0123456789';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
type Labelled = { query: string; expect: string | null; kind: string };
const meaning = meaningFromEnv();
const read = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { queries: Labelled[] }).queries;

/** The report a curator would read after `traffic` was asked by CLIENTS clients each, through the real server. */
async function reportAfter (registryFile: string, traffic: readonly Labelled[]): Promise<DemandReport> {
  const app = await buildApp({ ...loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '0' }), registryPath: registryFile, demandToken: TOKEN });
  const headers = { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' };
  for (let c = 0; c < CLIENTS; c++) {
    for (const { query } of traffic) {
      const payload = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_sources', arguments: { query }, _meta: META } };
      await app.inject({ method: 'POST', url: '/mcp', headers, payload, remoteAddress: `10.9.${c}.1` });
    }
  }
  const report = (await app.inject({ method: 'GET', url: '/demand', headers: { authorization: `Bearer ${TOKEN}` } })).json() as DemandReport;
  await app.close();
  return report;
}

const measure = (registry: Registry, set: readonly Labelled[]) => evaluateRegistry(buildMatcher(registry, undefined, { meaning }), set);
const fmt = (m: { firstAnswer: number; declined: number; confidentWrong: number; withinTwoCalls: number }) =>
  `first ${m.firstAnswer.toFixed(3)}, declined ${m.declined.toFixed(3)}, wrong ${(m.confidentWrong * 100).toFixed(2)}%, within two ${m.withinTwoCalls.toFixed(3)}`;

const parts: Record<'trafficBefore' | 'trafficAfter' | 'heldBefore' | 'heldAfter', Parameters<typeof pooledReport>[0][number][]> = {
  trafficBefore: [],
  trafficAfter: [],
  heldBefore: [],
  heldAfter: [],
};
for (const folder of process.argv.slice(2).map((f) => resolve(f))) {
  const file = join(folder, 'registry.json');
  const check = registryFromBytes(readFileSync(file));
  if (!check.ok) throw new Error(`${folder}: ${check.problems.join('; ')}`);
  const traffic = read(join(folder, 'traffic.json'));
  const held = read(join(folder, 'held-out.json'));
  const report = await reportAfter(file, traffic);
  const warnings = lint(check.registry).length;
  const { registry: edited, judged } = takeAll(check.registry, report, { meaning, acceptable: (r) => lint(r).length <= warnings });
  const taken = judged.filter((j) => j.skipped === undefined);
  console.log(`${folder}: ${judged.length} suggestions, ${taken.length} taken (${taken.map((j) => `${j.suggestion.kind} ${j.suggestion.slug}: "${j.suggestion.text}"`).join('; ')})`);
  for (const [name, set, registry] of [['trafficBefore', traffic, check.registry], ['trafficAfter', traffic, edited], ['heldBefore', held, check.registry], ['heldAfter', held, edited]] as const) {
    const report = measure(registry, set);
    parts[name].push({ report, queries: set });
    console.log(`  ${name}: ${fmt(report)}`);
  }
}
for (const [name, list] of Object.entries(parts)) console.log(`pooled ${name}: ${fmt(pooledReport(list))}`);
