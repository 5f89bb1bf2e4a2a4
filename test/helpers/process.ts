import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './build.js';
import { waitFor } from './wait.js';

/** The built server entry (npm test builds first). */
export const SERVER_ENTRY = join(ROOT, 'dist/src/server.js');

export interface Started {
  pid: number;
  code: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  /** The JSON log lines written so far. */
  logs: () => Record<string, unknown>[];
  kill: (signal: NodeJS.Signals) => void;
  address: Promise<string>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `ready` holds (at most 30 s, see waitFor): for what a process does after a signal. */
export async function until (ready: () => boolean): Promise<void> {
  await waitFor(ready);
}

// A test that fails half-way must not leave its server running.
const children = new Set<ChildProcess>();
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

/** Starts a real server process with only PATH and `env`; its address resolves once it listens. */
export function start (env: Record<string, string>, entry = SERVER_ENTRY, nodeArgs: readonly string[] = [], args: readonly string[] = []): Started {
  const child = spawn(process.execPath, [...nodeArgs, entry, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  let err = '';
  let resolveAddress: (a: string) => void = () => {};
  let rejectAddress: (e: Error) => void = () => {};
  const address = new Promise<string>((resolve, reject) => {
    resolveAddress = resolve;
    rejectAddress = reject;
  });
  // A server that exits before it listens fails the test that waits for it, with what it said,
  // instead of hanging it. A second later: a test racing `address` against `code` expects the exit.
  child.on('exit', (code) => setTimeout(() => rejectAddress(new Error(`the server exited (${code}) before listening: ${err.slice(-2000)}`)), 1000).unref());
  address.catch(() => undefined);
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => {
    err += d;
    const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
    if (m) resolveAddress(m[1]!);
  });
  return {
    pid: child.pid!,
    code: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    stdout: () => out,
    stderr: () => err,
    logs: () => err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>),
    kill: (s) => child.kill(s),
    address,
  };
}
