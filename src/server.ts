// First: on an unsupported Node, one line and exit 1 before anything else loads.
import './supported-node.js';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { buildApp } from './app.js';
import { loadConfig, type Config } from './config.js';
import { StartupError } from './errors.js';

type App = Awaited<ReturnType<typeof buildApp>>;

/** Where the log goes (stderr, written asynchronously), kept here: a start-up failure's line joins its queue. */
const logDestination = pino.destination({ dest: 2, sync: false });

/** Process entry only: configuration, the app, listening, reloads and a graceful exit. */
async function main (): Promise<void> {
  const config = loadConfig();
  const app = await buildApp(config, { logStream: logDestination });
  // SIGTERM/SIGINT: stop accepting, finish what is in flight, close the session store, exit 0;
  // past the grace delay the process exits anyway, with 1.
  // SIGHUP is ours (reload), not a shutdown signal.
  closeWithGrace(
    {
      delay: config.shutdownGraceMs,
      skip: ['SIGHUP'],
      // Its own lines ("second SIGTERM, exiting") go out as JSON on stderr like every other (console otherwise).
      logger: app.log,
      onTimeout: (graceMs) => app.log.error({ graceMs }, 'shutdown grace period over: exiting with requests still in flight'),
    },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'shutting down after an error');
      else app.log.info({ signal }, 'shutting down');
      // Node's close() ends only the connections idle at that moment: one whose request is still
      // in flight is kept alive after its answer and would hold the process until the grace delay.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      await app.close();
      clearInterval(sweep);
    }
  );
  // SIGHUP: re-read the registry; a bad file is logged and the previous registry stays.
  process.on('SIGHUP', () => { void app.reloadRegistry(); });
  await listen(app, config);
  if (config.pidFile !== undefined) writePidFile(config.pidFile);
}

/** Listening, with the failures an operator causes (port taken, wrong address) said in one line. */
async function listen (app: App, { host, port }: Config): Promise<void> {
  try {
    await app.listen({ host, port });
  } catch (err) {
    const { code, syscall, message } = err as NodeJS.ErrnoException;
    if (code === undefined || (syscall !== 'listen' && syscall !== 'getaddrinfo')) throw err;
    // Node says "listen EADDRINUSE: address already in use 127.0.0.1:3000": keep its words.
    const reason = /^listen \w+: (.+) \S+$/.exec(message)?.[1] ?? 'cannot resolve the host';
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    throw new StartupError('THREEGS_LISTEN', `cannot listen on ${address}: ${reason} (${code})`);
  }
}

/**
 * PID_FILE names the node process itself, for `kill -HUP "$(cat "$PID_FILE")"`: under
 * `npm start` the parent is npm, which a SIGHUP kills while the server goes on unreloaded.
 * Written once listening; removed at exit unless another server has taken the file over since.
 */
function writePidFile (file: string): void {
  try {
    writeFileSync(file, `${process.pid}\n`);
  } catch (err) {
    throw new StartupError('THREEGS_PID_FILE', `cannot write PID_FILE ${file} (${(err as NodeJS.ErrnoException).code ?? 'write error'})`);
  }
  process.on('exit', () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
    } catch {
      // Already gone: nothing to clean up.
    }
  });
}

main().catch((err: unknown) => {
  // Start-up problems are the operator's to fix: plain lines (one per problem), no stack trace.
  const message = err instanceof StartupError ? err.message : `cannot start: ${err instanceof Error ? err.message : String(err)}`;
  // Through the log's own queue, after the lines logged before it (one may still be in flight), so
  // the last line says why the process stops: a PID_FILE that cannot be written comes after
  // "listening", not before. The process exits once the queue is written out, or after a second.
  logDestination.write(message.split('\n').map((line) => `three-good-sources: ${line}\n`).join(''));
  logDestination.once('close', () => process.exit(1));
  logDestination.end();
  setTimeout(() => process.exit(1), 1000);
});
