import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { bootstrap } from './bootstrap/bootstrap.js';
import { PinoNestLogger } from './common/logging/logger.js';
import { Metrics } from './metrics/metrics.service.js';

/** Running jobs get this long to finish (each webhook attempt is bounded by 10 s). */
const SHUTDOWN_DEADLINE_MS = 15_000;

/**
 * A process that only runs the background workers (webhook deliveries and the other modules' jobs), with no HTTP
 * server: `npm run start:worker`. It runs them whatever WEBHOOK_WORKERS says, so HTTP instances can set it to
 * false and leave delivery to these. It needs DATABASE_URL: the embedded database belongs to an HTTP process.
 */
async function main(): Promise<void> {
  const runtime = await bootstrap({ role: 'worker', embeddedDatabase: false, migrate: true });
  const { config, logger } = runtime;
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot({ ...config, workersEnabled: true }),
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  const metricsServer = await runtime.startMetrics(app.get(Metrics).registry);
  runtime.onShutdown(async () => {
    logger.info('finishing running jobs');
    await app.close();
    await metricsServer?.close();
  }, SHUTDOWN_DEADLINE_MS);
  logger.info('Tollgate worker is running');
}

main().catch((error: unknown) => {
  console.error('Tollgate worker failed to start:', error);
  process.exit(1);
});
