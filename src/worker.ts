import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { ConfigValidationError, loadAppConfig, type AppConfig } from './config/app-config.js';
import { createLogger, PinoNestLogger } from './common/logging/logger.js';
import { runMigrations } from './database/migrate.js';

const SHUTDOWN_DEADLINE_MS = 15_000;

/**
 * A process that only runs the background workers (webhook deliveries and the other modules' jobs), with no HTTP
 * server: `npm run start:worker`. It runs them whatever WEBHOOK_WORKERS says, so HTTP instances can set it to
 * false and leave delivery to these.
 */
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
  if (!config.databaseUrl) {
    // The embedded database belongs to the HTTP process, which then runs the workers itself.
    console.error('Invalid configuration:\n  - DATABASE_URL: required by the standalone worker');
    process.exit(78);
  }
  const logger = createLogger(config.logLevel);

  const applied = await runMigrations(config.databaseUrl);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot({ ...config, workersEnabled: true }),
    {
      logger: new PinoNestLogger(logger),
      abortOnError: false,
    },
  );

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing running jobs');
    setTimeout(() => {
      logger.error(`shutdown took longer than ${SHUTDOWN_DEADLINE_MS / 1000} s, exiting anyway`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    await app.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  logger.info('Tollgate worker is running');
}

main().catch((error: unknown) => {
  console.error('Tollgate worker failed to start:', error);
  process.exit(1);
});
