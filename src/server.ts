import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { StartupError } from './errors.js';

/** Process entry only: configuration, the app, listening, reloads and a graceful exit. */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildApp(config);
  // SIGTERM/SIGINT: stop accepting, finish what is in flight, close the session store, exit 0;
  // past the grace delay the process exits anyway.
  // SIGHUP is ours (reload), not a shutdown signal.
  closeWithGrace({ delay: config.shutdownGraceMs, skip: ['SIGHUP'] }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });
  // SIGHUP: re-read the registry; a bad file is logged and the previous registry stays.
  process.on('SIGHUP', () => void app.reloadRegistry());
  await app.listen({ host: config.host, port: config.port });
}

main().catch((err: unknown) => {
  // Start-up problems are the operator's to fix: one clear line, no stack trace.
  const message = err instanceof StartupError ? err.message : `cannot start: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(`three-good-sources: ${message}\n`);
  process.exit(1);
});
