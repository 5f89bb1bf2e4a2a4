import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/** Whether a connection to `port` on loopback is accepted now. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/** Waits until `child` (a proxy we started) accepts connections on `port`; throws with its log's tail if it exits or never does. */
export async function untilListening (child: ChildProcess, port: number, name: string, log: () => string): Promise<void> {
  // Caddy and nginx take well under a second.
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${log().slice(-500)}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} did not listen on ${port}: ${log().slice(-500)}`);
}
