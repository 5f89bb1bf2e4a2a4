#!/usr/bin/env node
// Process entry of `npx three-good-sources`: everything else lives in run.ts.
// First: on an unsupported Node, one line and exit 1 before anything else loads.
import '../supported-node.js';
import { run } from './run.js';

// `... | head` closes the pipe early: that is the reader's choice, not a crash to report.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

// `serve`: the server itself, configured as `npm start` is (environment variables), in this process.
const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === 'serve') await import('../server.js');
else process.exitCode = await run(argv);
