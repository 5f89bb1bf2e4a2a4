import closeWithGrace from 'close-with-grace';
import { buildApp } from '../plugins/app.js';
import { ConfigError, loadConfig } from './config.js';
import { RegistryError } from './registry/load.js';

/** Process entry only: configuration, the app, listening, and a graceful exit. */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildApp(config);
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });
  await app.listen({ host: config.host, port: config.port });
}

main().catch((err: unknown) => {
  // Start-up problems are the operator's to fix: one clear line, no stack trace.
  if (err instanceof ConfigError || err instanceof RegistryError) {
    process.stderr.write(`three-good-sources: ${err.message}\n`);
  } else {
    process.stderr.write(`three-good-sources: cannot start: ${(err as Error).message}\n`);
  }
  process.exit(1);
});
