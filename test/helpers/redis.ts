import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A free TCP port on loopback (bind to 0, read it, release it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * A real redis-server of our own on a free loopback port, without persistence. .ci/run installs
 * the package; a machine without it fails here with the command that fixes it.
 */
export async function startRedis(t: { teardown(fn: () => unknown): void }): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      child!.on('error', (err) => reject(new Error(`cannot run redis-server (${err.message}); install it: apt-get install redis-server`)));
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
