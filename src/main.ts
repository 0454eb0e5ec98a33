import 'reflect-metadata';
import { createApp } from './app.js';
import { loadAppConfig, ConfigValidationError, type AppConfig } from './config/app-config.js';
import { createLogger } from './common/logging/logger.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './database/embedded-postgres.js';
import { runMigrations } from './database/migrate.js';

const SHUTDOWN_DEADLINE_MS = 10_000;

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadAppConfig();
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);

  let embedded: EmbeddedDatabase | undefined;
  if (!config.databaseUrl) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger);
    config = { ...config, databaseUrl: embedded.url };
  }
  const applied = await runMigrations(config.databaseUrl!);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  const app = await createApp({ ...config }, logger);

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    setTimeout(() => {
      logger.error('shutdown took longer than 10 s, exiting anyway');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    await app.close();
    await embedded?.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  logger.info({ url: `http://${config.host}:${config.port}`, docs: '/docs' }, 'Tollgate is listening');
}

main().catch((error: unknown) => {
  console.error('Tollgate failed to start:', error);
  process.exit(1);
});
