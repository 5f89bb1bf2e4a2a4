import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import t from 'tap';
import { waitFor } from '../helpers/wait.js';
import { start, until } from '../helpers/process.js';

t.test('waitFor returns once the condition holds, or false past its bound (issue 24, item 22b)', async (t) => {
  let n = 0;
  t.equal(await waitFor(() => ++n >= 3), true);
  t.equal(n, 3, 'polled until it held, no longer');
  t.equal(await waitFor(() => false, 100), false, 'false past the bound');
  t.equal(await waitFor(async () => true), true, 'an async condition');
});

t.test('a server process started and stopped on a machine saturated four times over still passes the waits the tests use (issue 24, item 22b)', async (t) => {
  // Busy loops, four per core: what a loaded CI machine looks like to the tests.
  const burners: ChildProcess[] = Array.from({ length: cpus().length * 4 }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  t.teardown(() => burners.forEach((b) => b.kill('SIGKILL')));
  const server = start({ PORT: '0' });
  t.teardown(() => server.kill('SIGKILL'));
  const address = await server.address;
  t.equal((await fetch(`${address}/health`)).status, 200, 'it answers');
  server.kill('SIGTERM');
  await until(() => server.stderr().includes('"msg":"shutting down"'));
  t.match(server.stderr(), /"msg":"shutting down"/, 'the shutdown line is waited for, not slept for');
  t.equal(await server.code, 0);
});
