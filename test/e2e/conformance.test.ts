import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ROOT, build } from '../helpers/build.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/**
 * The scenarios of @modelcontextprotocol/conformance 0.1.13 that apply to a tools-only server.
 * The others need features we do not offer (logging, completions, resources, prompts,
 * sampling, elicitation, progress) or the suite's own test tools (test_simple_text, ...).
 */
export const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'server-sse-multiple-streams'];

t.test('the official conformance suite passes every scenario that applies', async (t) => {
  const app = await build(t);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://localhost:${new URL(address).port}/mcp`;
  const cwd = await mkdtemp(join(tmpdir(), '3gs-conformance-'));
  for (const scenario of SCENARIOS) {
    const { stdout } = await run(process.execPath, [CLI, 'server', '--url', url, '--scenario', scenario], { cwd, timeout: 60_000 }).catch(
      (err: { stdout?: string; message: string }) => ({ stdout: `${err.stdout ?? ''}\n${err.message}` }),
    );
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
    t.ok(summary !== null, `${scenario}: ran`, { output: stdout.slice(-500) });
    if (summary === null) continue;
    t.ok(Number(summary[2]) > 0, `${scenario}: made at least one check`);
    t.equal(summary[1], summary[2], `${scenario}: ${summary[0]}`);
    t.equal(summary[3], '0', `${scenario}: no failures`);
  }
});
