/**
 * The demand signal's cost (issue 25): what recording adds to a request, and the memory it holds
 * after a million distinct queries. Run by `npm run bench` after the HTTP benchmarks, or alone
 * with `npm run bench:demand`.
 *
 *   DEMAND_BENCH_QUERIES (default 1000000)   distinct declined queries for the memory reading
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { askedOf, SEP, type Asked } from '../../src/demand/asked.js';
import { DemandSignal } from '../../src/demand/signal.js';
import { MemoryDemandStore } from '../../src/demand/memory-store.js';
import { RedisDemandStore } from '../../src/demand/redis-store.js';
import { redisServerBinary } from '../../test/helpers/redis.js';
import { freePort } from '../lib/free-port.js';
import { ITEMS_IN_WINDOW, itemsPerDay } from '../../src/demand/store.js';
import { buildMatcher, prepareQuery, type Matcher } from '../../src/matcher/matcher.js';
import { projectRoot } from '../../src/project.js';
import { loadRegistry } from '../../src/registry/load.js';

const root = projectRoot();
const gc = (globalThis as { gc?: () => void }).gc;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

const limits = { minClients: 5, windowDays: 30, itemsPerDay: itemsPerDay(30) };

export async function benchDemand (): Promise<void> {
  const matcher = buildMatcher(await loadRegistry(join(root, 'registry.json')));
  cost(matcher);
  memory(matcher);
  await reportPauses();
}

/**
 * The event loop while the curator's report is built on a full window (issue 31, finding 1):
 * 30 days of 2,500 items each, every one asked by six clients (so every one is shown), the report
 * built ten times while a 1 ms timer measures how late the loop runs it.
 */
async function reportPauses (): Promise<void> {
  const clock = { now: Date.UTC(2026, 10, 1, 12) };
  await reportPausesOf('memory', new MemoryDemandStore({ ...limits, now: () => clock.now }), clock);
  if (redisServerBinary() === undefined) {
    console.log('report on a full window in Redis: not measured (no redis-server on PATH)');
    return;
  }
  const port = await freePort();
  const server = spawn(redisServerBinary()!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  try {
    await sleep(300);
    const redisClock = { now: Date.UTC(2026, 10, 1, 12) };
    const store = await RedisDemandStore.connect({ url: `redis://127.0.0.1:${port}`, secret: 'bench-demand-secret-of-enough-length-000', ...limits, flushMs: 600_000, now: () => redisClock.now });
    await reportPausesOf('Redis', store, redisClock);
    await store.close();
  } finally {
    server.kill();
  }
}

/** Fills `store` with a full window (each day flushed, for Redis), then builds the report ten times while a 1 ms timer watches the event loop. */
async function reportPausesOf (where: string, store: MemoryDemandStore | RedisDemandStore, clock: { now: number }): Promise<void> {
  let n = 0;
  for (let day = 0; day < limits.windowDays; day++, clock.now += 86_400_000) {
    for (let i = 0; i < limits.itemsPerDay; i++, n++) {
      // Every kind the report reads, questions as long as they are kept (twelve words) so that
      // grouping them costs what it can.
      const kind = ['term', 'phrase', 'query', `near-word${SEP}slug${i % 40}`, `near-query${SEP}slug${i % 40}`, `answered-query${SEP}slug${i % 40}`, `scope${SEP}slug${i % 40}`][i % 7]!;
      const question = Array.from({ length: 10 }, (_, j) => `word${(n * (j + 1)) % 5000}`).join(' ');
      const item = `${kind}${SEP}${kind.endsWith('query') ? question : `word${n % 5000} other${(n * 3) % 5000}`} ${n}`;
      for (let c = 0; c < 6; c++) store.record({ outcome: 'below-threshold', totals: [`outcome${SEP}below-threshold`], items: [item] }, `10.${day}.${i >> 8}.${c * 40 + (i & 31)}`);
    }
    if (store instanceof RedisDemandStore) await store.flush();
  }
  clock.now -= 86_400_000;
  const signal = new DemandSignal(store, { recording: true, minClients: limits.minClients, windowDays: limits.windowDays });
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const took: number[] = [];
  // Counted once, before the timing: the report takes its own snapshot.
  const shown = (await store.snapshot()).items.length;
  for (let r = 0; r < 10; r++) {
    if (r === 2) loop.enable(); // the first two warm the JIT
    const started = performance.now();
    await signal.report(new Map());
    took.push(performance.now() - started);
  }
  loop.disable();
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(`report on a full window in ${where} (${shown.toLocaleString('en')} items shown): median ${median(took).toFixed(0)} ms to build; event-loop delay meanwhile p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms`);
}

function cost (matcher: Matcher): void {
  // Cost: the labelled queries as agents ask them (answers and declines, as the matcher decides),
  // from 10,000 clients; timed in batches of 1,000 records, the median batch divided by 1,000.
  const labelled = JSON.parse(readFileSync(join(root, 'test/fixtures/queries.json'), 'utf8')).queries as { query: string }[];
  const asked: Asked[] = labelled.map(({ query }) => {
    const prepared = prepareQuery(query);
    return askedOf(matcher, prepared, matcher.match(query, undefined, prepared));
  });
  const clients = Array.from({ length: 10_000 }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
  const store = new MemoryDemandStore(limits);
  const perRecord: number[] = [];
  const BATCH = 1000;
  for (let b = 0; b < 1000; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCH; i++) {
      const n = b * BATCH + i;
      store.record(asked[n % asked.length]!, clients[(n * 7919) % clients.length]!);
    }
    perRecord.push(Number(process.hrtime.bigint() - start) / BATCH / 1000);
  }
  const declined = asked.filter((a) => a.items.length > 0);
  const declinedTimes: number[] = [];
  for (let b = 0; b < 300; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCH; i++) store.record(declined[(b * BATCH + i) % declined.length]!, clients[(b * BATCH + i * 31) % clients.length]!);
    declinedTimes.push(Number(process.hrtime.bigint() - start) / BATCH / 1000);
  }
  console.log(`\n== demand signal: recording cost (${labelled.length} labelled queries, ${declined.length} of them declined, 10,000 clients, 1,000,000 records)`);
  console.log(`all requests:      median ${median(perRecord).toFixed(2)} µs per record, p99 batch ${percentile(perRecord, 0.99).toFixed(2)} µs`);
  console.log(`declined requests: median ${median(declinedTimes).toFixed(2)} µs per record, p99 batch ${percentile(declinedTimes, 0.99).toFixed(2)} µs (each adds up to ${Math.max(...declined.map((a) => a.items.length))} items)`);
}

/**
 * What one filled store holds: the heap with it full, less the heap once it is emptied (the matcher's
 * bounded caches, filled by the same queries, stay in both).
 */
function held (
  matcher: Matcher,
  total: number,
  query: (i: number) => string,
  window: { windowDays: number; itemsPerDay: number }
): { bytes: number; items: number; seconds: number } {
  const outcome = { kind: 'no-match', reason: 'below-threshold', closest: null, threshold: 0.45, candidates: [] } as const;
  const store = new MemoryDemandStore({ minClients: 5, ...window });
  const started = Date.now();
  for (let i = 0; i < total; i++) store.record(askedOf(matcher, prepareQuery(query(i)), outcome), `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const seconds = (Date.now() - started) / 1000;
  gc?.();
  const full = process.memoryUsage().heapUsed;
  const items = store.stored().reduce((n, d) => n + d.items.length, 0);
  void store.close();
  gc?.();
  return { bytes: full - process.memoryUsage().heapUsed, items, seconds };
}

/** In a function of its own, so that nothing of the cost phase is alive when the heap is read. */
function memory (matcher: Matcher): void {
  const total = Number(process.env.DEMAND_BENCH_QUERIES ?? 1_000_000);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  // A million distinct declined queries of three new words each, from a million clients, in one day.
  const plain = held(matcher, total, (i) => `alpha${i} beta${i} gamma${i}`, limits);
  console.log(`memory: the store holds ${mb(plain.bytes)} MB after ${total.toLocaleString('en')} distinct queries in a day (${plain.items} items kept, the day's share of ${ITEMS_IN_WINDOW.toLocaleString('en')}; ${plain.seconds.toFixed(0)} s)`);
  // The worst case: every item as long as an item can be (words of 24 letters), every item the window keeps on one day.
  const long = (i: number) => Array.from({ length: 12 }, (_, j) => `w${i}x${j}`.padEnd(24, 'q')).join(' ');
  const worst = held(matcher, 20_000, long, { windowDays: 1, itemsPerDay: ITEMS_IN_WINDOW });
  console.log(`memory, worst case: ${mb(worst.bytes)} MB for the window's ${worst.items.toLocaleString('en')} items all of the longest kind (${(worst.bytes / worst.items).toFixed(0)} bytes each)${gc === undefined ? ' (run with --expose-gc for settled readings)' : ''}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchDemand();
