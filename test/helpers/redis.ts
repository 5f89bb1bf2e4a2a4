import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../scripts/lib/free-port.js';
import { binaryOnPath } from './binary.js';

/** A free TCP port on loopback (bind to 0, read it, release it). */
export { freePort };

/** The redis-server binary on PATH, if there is one. */
export function redisServerBinary (): string | undefined {
  return binaryOnPath('redis-server');
}

const HOW_TO_ENABLE = 'install redis-server (apt-get install redis-server) or set REDIS_TEST_URL=redis://127.0.0.1:6379 to a throwaway Redis';

/**
 * The `skip` option of a test that needs Redis: false when it can run, else the reason, which tap
 * prints. "found" means a redis-server binary (the test starts its own), or REDIS_TEST_URL for
 * tests that only need a server. With CI=true nothing is skipped: CI installs Redis, and a missing
 * one must fail the run rather than pass it quietly.
 * @param needsBinary the test stops and starts Redis itself, so a URL is not enough
 */
export function redisSkip (needsBinary = false): string | false {
  if (process.env.CI === 'true') return false;
  if (redisServerBinary() !== undefined) return false;
  if (!needsBinary && process.env.REDIS_TEST_URL) return false;
  return needsBinary
    ? 'needs a redis-server binary to stop and start: install redis-server (apt-get install redis-server)'
    : `needs Redis: ${HOW_TO_ENABLE}`;
}

export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * A real Redis for one test: REDIS_TEST_URL when it is set and the test does not stop Redis,
 * otherwise a redis-server of our own on a free loopback port, without persistence.
 */
export async function startRedis (t: { teardown(fn: () => unknown): void }, needsBinary = false): Promise<RedisServer> {
  const external = process.env.REDIS_TEST_URL;
  if (external && !needsBinary && redisServerBinary() === undefined) {
    const refuse = () => Promise.reject(new Error('REDIS_TEST_URL names a server this test cannot stop or start'));
    return { url: external, stop: refuse, start: refuse };
  }
  const binary = redisServerBinary();
  if (binary === undefined) throw new Error(`redis-server was not found on PATH: ${HOW_TO_ENABLE}`);
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      child!.on('error', (err) => reject(new Error(`cannot run redis-server (${err.message})`)));
      child!.stdout!.on('data', (d) => {
        seen += d;
        if (seen.includes('Ready to accept connections')) resolve();
      });
      child!.on('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${seen.slice(-300)}`)));
    });
  };
  const stop = async () => {
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  await start();
  t.teardown(stop);
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}
