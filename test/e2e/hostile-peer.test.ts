import t from 'tap';
import { endorsingRegistry, newKey } from '../helpers/peers.js';
import { fakeServer } from '../helpers/fake-server.js';
import { sleep, start, until } from '../helpers/process.js';

// npm test builds dist/ first: this is the server as npm start runs it, in its own process.
t.test('a peer that sends more content encodings than a client decodes and holds its other documents open cannot end the server (it used to, at the fetch timeout)', async (t) => {
  const key = newKey();
  let asked = 0;
  const url = await fakeServer(t, (req, res) => {
    asked++;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/registry') res.setHeader('content-encoding', Array(8).fill('gzip').join(', '));
    // Every body is left open: the other two fetches wait until they are cancelled or time out.
    res.write('x');
  });
  const registryPath = await endorsingRegistry([{ key: key.publicKey, url, name: 'Hostile peer' }]);
  const server = start({ PORT: '0', LOG_LEVEL: 'info', REGISTRY_PATH: registryPath, FEDERATION_ALLOW_LOOPBACK_HTTP: 'true' });
  t.teardown(() => server.kill('SIGKILL'));
  const address = await server.address;
  const refused = () => server.logs().find((l) => typeof l.reason === 'string' && (l.reason as string).startsWith('content encoding'));
  await until(() => refused() !== undefined);
  t.match(refused(), { peer: { name: 'Hostile peer' }, reason: 'content encoding "gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip": peers must serve their documents unencoded' });
  // The three fetches go out together; the refusal can be logged before the other two reach this process.
  await until(() => asked >= 3);
  t.ok(asked >= 3, 'all three documents were asked for');
  // Past the 5 s fetch timeout of the documents that were held, and a retry after 5 s of backoff.
  let exited = false;
  void server.code.then(() => (exited = true));
  await sleep(11_000);
  t.notOk(exited, 'the process is still running');
  const health = await fetch(`${address}/health`);
  t.equal(health.status, 200, 'and still serving');
  const peers = (await (await fetch(`${address}/federation/peers`)).json()) as { peers: { state: string; lastError: { reason: string } }[] };
  t.match(peers.peers[0], { state: 'unavailable', lastError: { reason: /^content encoding/ } });
  t.notMatch(server.stderr(), /uncaught|AbortError|unhandled/i, 'no error escaped to the process');
  server.kill('SIGTERM');
  t.equal(await server.code, 0, 'and it shuts down cleanly on SIGTERM');
});
