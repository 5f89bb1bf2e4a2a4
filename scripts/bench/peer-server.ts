/**
 * The peers' web server of npm run bench:hostile, in its own process: serves, per path, the three
 * documents its parent sends over IPC (base64), and says its port once listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const documents = new Map<string, { registry: Buffer; signature: Buffer; history: Buffer }>();
process.on('message', (m: { path: string; registry: string; signature: string; history: string }) => {
  documents.set(m.path, { registry: Buffer.from(m.registry, 'base64'), signature: Buffer.from(m.signature, 'base64'), history: Buffer.from(m.history, 'base64') });
  process.send!({ stored: m.path });
});
const server = createServer((req, res) => {
  const match = /^(.*)\/registry(\/signature|\/history)?$/.exec(req.url ?? '');
  const docs = match === null ? undefined : documents.get(match[1]!);
  if (docs === undefined) {
    res.statusCode = 404;
    res.end();
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.end(match![2] === '/signature' ? docs.signature : match![2] === '/history' ? docs.history : docs.registry);
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
