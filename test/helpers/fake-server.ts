import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real listening HTTP server with a handler of our choosing, for replies a healthy 3GS never gives. */
export async function fakeServer (t: { teardown(fn: () => unknown): void }, handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
