/**
 * npm run bench: 3GS against the framework's ceiling (bare Fastify, canned reply) and against the
 * same tools on the official SDK, on this machine, in interleaved rounds; medians are reported.
 * Every reply is checked during the run (status, JSON-RPC error, shape, echoed id). Then, for
 * sources and modern, 3GS and the ceiling again at a fixed offered rate: half the ceiling's
 * measured maximum, for latency at a load both can carry.
 *
 *   BENCH_SECONDS (default 5)   length of one measurement
 *   BENCH_ROUNDS  (default 3)   interleaved rounds
 *   BENCH_CONNECTIONS (50)      concurrent connections
 *   BENCH_INIT_AMOUNT (100000)  initialize requests before the memory reading
 *   BENCH_ONLY (e.g. sources/3gs) one workload/server pair, and no memory phase
 *   BENCH_RATE (e.g. 10000)     with BENCH_ONLY: that pair at this fixed offered rate, not at saturation
 *   BENCH_LOG_LEVEL (info)      the servers' LOG_LEVEL
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { projectRoot } from '../src/project.js';
import { freePort } from './lib/free-port.js';

const root = projectRoot();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const INIT_AMOUNT = Number(process.env.BENCH_INIT_AMOUNT ?? 100_000);
const V26 = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V26, 'io.modelcontextprotocol/clientCapabilities': {} };
const ACCEPT = 'application/json, text/event-stream';

type Target = '3gs' | 'sdk' | 'ceiling';
type Workload = 'sources' | 'mixed' | 'init' | 'modern';

interface Labelled { query: string; expect: string | null }
const QUERIES = (JSON.parse(readFileSync(join(root, 'test/fixtures/queries.json'), 'utf8')).queries as Labelled[])
  .filter((q) => q.expect !== null)
  .filter((_, i) => i % 4 === 0)
  .map((q) => q.query)
  .slice(0, 60);

interface Running { target: Target; url: string; child: ChildProcess }

async function start (target: Target): Promise<Running> {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port) };
  const command: Record<Target, string[]> = {
    // As `npm start` and the Dockerfile run it (see the README's Performance section for the flag).
    '3gs': ['--max-semi-space-size=8', join(root, 'dist/src/server.js')],
    sdk: ['--import', 'tsx', join(root, 'scripts/bench/sdk-server.ts')],
    ceiling: ['--import', 'tsx', join(root, 'scripts/bench/ceiling.ts')],
  };
  // For profiling a server under load, e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ...command[target]], {
    cwd: root,
    // Production defaults, except the per-client rate limit, which one load generator would hit at once.
    env: {
      ...env,
      RATE_LIMIT_MAX: '0',
      CURATOR_SECRET_KEY: '42'.repeat(32),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { target, url, child };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${target} did not start`);
}

/** CPU seconds (user + system) the process has used: steadier than req/s on a shared machine. */
function cpuSeconds (child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks of 1/100 s
}

function rssMb (child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function stop (r: Running): Promise<void> {
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  await exited;
}

/** One legacy session, opened with the full handshake. */
async function openSession (url: string): Promise<string> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  const id = res.headers.get('mcp-session-id');
  if (id === null) throw new Error(`initialize failed: ${res.status}`);
  await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return id;
}

interface Check { failures: number; first?: string }

function request (body: Record<string, unknown>, headers: Record<string, string>, check: Check, expectId: boolean): autocannon.Request {
  const expect = body.method === 'initialize' ? 'init' : 'tool';
  return {
    method: 'POST',
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
    onResponse: (status: number, text: string) => {
      let problem: string | undefined;
      try {
        const reply = JSON.parse(text);
        if (status !== 200) problem = `HTTP ${status}`;
        else if (reply.error) problem = `JSON-RPC error ${reply.error.code}`;
        else if (expectId && reply.id !== body.id) problem = `id ${reply.id} instead of ${String(body.id)}`;
        else if (!expectId) problem = undefined;
        else if (expect === 'init' ? typeof reply.result?.protocolVersion !== 'string' : typeof reply.result?.content?.[0]?.text !== 'string') problem = 'unexpected shape';
      } catch {
        problem = `HTTP ${status}, not JSON`;
      }
      if (problem !== undefined) {
        check.failures++;
        check.first ??= problem;
      }
    },
  } as autocannon.Request;
}

async function requests (r: Running, workload: Workload, check: Check): Promise<autocannon.Request[]> {
  // The ceiling's canned reply echoes no id and holds no real result: only status and error are checked there.
  const expectId = r.target !== 'ceiling';
  const call = (i: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: `r${i}`, method: 'tools/call', params: { name, arguments: args } });
  if (workload === 'init') {
    const init = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };
    return [request(init, {}, check, expectId)];
  }
  if (workload === 'modern') {
    return QUERIES.map((q, i) =>
      request({ ...call(i, 'get_sources', { query: q }), params: { name: 'get_sources', arguments: { query: q }, _meta: META } }, { 'mcp-protocol-version': V26, 'mcp-method': 'tools/call', 'mcp-name': 'get_sources' }, check, expectId)
    );
  }
  const session = r.target === 'ceiling' ? 'none' : await openSession(r.url);
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  if (workload === 'sources') return QUERIES.map((q, i) => request(call(i, 'get_sources', { query: q }), headers, check, expectId));
  // mixed: 70% get_sources, 10% each of the other three.
  const others = ['list_categories', 'get_provenance', 'get_endorsements'];
  return Array.from({ length: 100 }, (_, i) =>
    i % 10 < 7 ? request(call(i, 'get_sources', { query: QUERIES[i % QUERIES.length]! }), headers, check, expectId) : request(call(i, others[(i % 10) - 7]!, {}), headers, check, expectId)
  );
}

interface Sample { rps: number; p50: number; p99: number; rss: number; cpuMicros: number; failures: number; first?: string }

async function measure (r: Running, workload: Workload, options: { duration?: number; amount?: number; rate?: number } = {}): Promise<Sample> {
  const check: Check = { failures: 0 };
  const list = await requests(r, workload, check);
  const cpuBefore = cpuSeconds(r.child);
  const result = await autocannon({
    url: r.url,
    connections: CONNECTIONS,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.duration ?? SECONDS }),
    // A fixed offered rate across all connections (open loop as far as autocannon goes): latency
    // at a load both servers can carry, rather than at each one's own saturation.
    ...(options.rate !== undefined ? { overallRate: options.rate } : {}),
    requests: list,
  });
  const cpuMicros = ((cpuSeconds(r.child) - cpuBefore) * 1e6) / Math.max(1, result.requests.total);
  const failures = check.failures + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rss: rssMb(r.child),
    cpuMicros,
    failures,
    ...(check.first ? { first: check.first } : {}),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const TARGETS: Target[] = ['ceiling', '3gs', 'sdk'];
const WORKLOADS: Workload[] = ['sources', 'mixed', 'init', 'modern'];
const applies = (t: Target, w: Workload) => !(t === 'sdk' && w === 'modern'); // SDK 1.x speaks only the 2025 era

console.log(`bench: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
console.log(`${CONNECTIONS} connections, ${SECONDS} s per measurement, ${ROUNDS} interleaved rounds, medians; ${QUERIES.length} rotating queries`);

const samples = new Map<string, Sample[]>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const workload of WORKLOADS) {
    for (const target of TARGETS) {
      if (!applies(target, workload)) continue;
      if (process.env.BENCH_ONLY !== undefined && process.env.BENCH_ONLY !== `${workload}/${target}`) continue;
      const r = await start(target);
      const s = await measure(r, workload, process.env.BENCH_RATE === undefined ? {} : { rate: Number(process.env.BENCH_RATE) });
      await stop(r);
      const key = `${workload}/${target}`;
      samples.set(key, [...(samples.get(key) ?? []), s]);
      console.log(`  round ${round} ${key.padEnd(16)} ${s.rps.toFixed(0).padStart(7)} req/s  p50 ${s.p50} ms  p99 ${s.p99} ms  rss ${s.rss.toFixed(0)} MB  cpu ${s.cpuMicros.toFixed(0)} µs/req  failures ${s.failures}${s.first ? ` (${s.first})` : ''}`);
    }
  }
}

// Latency at a fixed offered rate: half the ceiling's measured maximum, the same for both servers.
// init too: its CPU per request at the same offered load is compared as well.
const FIXED: Workload[] = ['sources', 'modern', 'init'];
const fixed = new Map<string, Sample[]>();
const rates = new Map<Workload, number>();
for (const workload of FIXED) {
  const ceilingMax = median((samples.get(`${workload}/ceiling`) ?? []).map((s) => s.rps));
  if (Number.isFinite(ceilingMax) && ceilingMax > 0) rates.set(workload, Math.floor(ceilingMax / 2));
}
if (process.env.BENCH_ONLY === undefined) {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [workload, rate] of rates) {
      for (const target of ['ceiling', '3gs'] as const) {
        const r = await start(target);
        const s = await measure(r, workload, { rate });
        await stop(r);
        const key = `${workload}/${target}`;
        fixed.set(key, [...(fixed.get(key) ?? []), s]);
        console.log(`  round ${round} ${key.padEnd(16)} at ${rate} req/s offered: ${s.rps.toFixed(0)} req/s  p50 ${s.p50} ms  p99 ${s.p99} ms  cpu ${s.cpuMicros.toFixed(0)} µs/req  failures ${s.failures}`);
      }
    }
  }
}

console.log(`\n${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, BENCH_ROUNDS=${ROUNDS} npm run bench`);
console.log('CPU ratio: requests per server CPU-second, ours over the ceiling\'s in the same run (the ceiling\'s CPU µs per request over ours).');
console.log('CPU ratio at fixed rate: the same, with both servers offered the same load (when 3GS carries it: see its req/s in the round lines).');
console.log('\n| workload | server | req/s | vs ceiling | CPU µs/req | CPU ratio | p50 ms | p99 ms | fixed rate | p50 ms | p99 ms | p99 vs ceiling | CPU µs/req at fixed rate | CPU ratio at fixed rate | RSS MB | failed replies |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const workload of WORKLOADS) {
  const ceilingList = samples.get(`${workload}/ceiling`) ?? [];
  const ceiling = median(ceilingList.map((s) => s.rps));
  const ceilingCpu = median(ceilingList.map((s) => s.cpuMicros));
  const ceilingFixedP99 = median((fixed.get(`${workload}/ceiling`) ?? []).map((s) => s.p99));
  const ceilingFixedCpu = median((fixed.get(`${workload}/ceiling`) ?? []).map((s) => s.cpuMicros));
  for (const target of TARGETS) {
    const list = samples.get(`${workload}/${target}`);
    if (list === undefined) {
      console.log(`| ${workload} | ${target} | n/a | | | | | | | | | | | | | |`);
      continue;
    }
    const rps = median(list.map((s) => s.rps));
    const cpu = median(list.map((s) => s.cpuMicros));
    const atRate = fixed.get(`${workload}/${target}`);
    const failures = [...list, ...(atRate ?? [])].reduce((n, s) => n + s.failures, 0);
    const fixedCpu = atRate === undefined ? Number.NaN : median(atRate.map((s) => s.cpuMicros));
    const rateCells =
      atRate === undefined
        ? '| | | | | | |'
        : `| ${rates.get(workload)} | ${median(atRate.map((s) => s.p50))} | ${median(atRate.map((s) => s.p99))} | ${(median(atRate.map((s) => s.p99)) / ceilingFixedP99).toFixed(2)} | ${fixedCpu.toFixed(0)} | ${(ceilingFixedCpu / fixedCpu).toFixed(2)} |`;
    console.log(
      `| ${workload} | ${target} | ${rps.toFixed(0)} | ${(rps / ceiling).toFixed(2)} | ${cpu.toFixed(0)} | ${(ceilingCpu / cpu).toFixed(2)} | ${median(list.map((s) => s.p50))} | ${median(list.map((s) => s.p99))} ${rateCells} ${median(list.map((s) => s.rss)).toFixed(0)} | ${failures} |`
    );
  }
}

// Memory: sessions are capped and expire, so RSS stays flat however many clients initialize.
if (process.env.BENCH_ONLY !== undefined) process.exit(0);
const sessionsRun = await start('3gs');
const before = rssMb(sessionsRun.child);
const flood = await measure(sessionsRun, 'init', { amount: INIT_AMOUNT });
console.log(`\n3gs after ${INIT_AMOUNT} initialize requests: RSS ${flood.rss.toFixed(0)} MB (${before.toFixed(0)} MB before), ${flood.failures} failed replies`);
await stop(sessionsRun);
const sdkAmount = Math.min(INIT_AMOUNT, 10_000);
const sdkRun = await start('sdk');
const sdkBefore = rssMb(sdkRun.child);
const sdkFlood = await measure(sdkRun, 'init', { amount: sdkAmount });
console.log(`sdk after ${sdkAmount} initialize requests: RSS ${sdkFlood.rss.toFixed(0)} MB (${sdkBefore.toFixed(0)} MB before): about ${(((sdkFlood.rss - sdkBefore) * 1024) / sdkAmount).toFixed(0)} KB per session, never released`);
await stop(sdkRun);

// The demand signal's own cost, measured directly: at HTTP level its microseconds drown in noise.
const { benchDemand } = await import('./bench/demand.js');
await benchDemand();
