import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import { JwtSecretFileError, resolveJwtSecret } from './auth/jwt-secret.js';
import { loadAppConfig, ConfigValidationError, type AppConfig } from './config/app-config.js';
import { createLogger } from './common/logging/logger.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './database/embedded-postgres.js';
import { runMigrations } from './database/migrate.js';

const SHUTDOWN_DEADLINE_MS = 10_000;

function loadConfigOrExit(): AppConfig {
  try {
    return loadAppConfig();
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
}

/** SIGTERM/SIGINT: stop accepting, finish in-flight work, release resources, exit; never longer than 10 s. */
function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown took longer than 10 s, exiting anyway');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

/** One HTTP server process: the whole service, or one of WEB_CONCURRENCY cluster workers. */
async function serve(config: AppConfig, logger: Logger, embedded?: EmbeddedDatabase): Promise<void> {
  const app = await createApp(config, logger);
  onShutdown(logger, async () => {
    await app.close();
    await embedded?.stop();
  });
  await app.listen({ port: config.port, host: config.host });
  logger.info({ url: `http://${config.host}:${config.port}`, docs: '/docs' }, 'Tollgate is listening');
}

/**
 * The database comes first (the embedded one when DATABASE_URL is unset, started once even in cluster mode), then
 * migrations, then one server or WEB_CONCURRENCY cluster workers sharing the port.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);

  if (cluster.isWorker) {
    await serve(config, logger.child({ worker: cluster.worker?.id }));
    return;
  }

  // Before anything is started or forked: a bad stored secret stops the start here (not in each worker, which the
  // primary would restart forever), and a generated one exists before the workers, which all read the same file.
  try {
    resolveJwtSecret(config);
  } catch (error) {
    if (!(error instanceof JwtSecretFileError)) throw error;
    console.error(error.message);
    process.exit(78);
  }

  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger);
    databaseUrl = embedded.url;
  }
  const applied = await runMigrations(databaseUrl);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  if (config.webConcurrency <= 1) {
    await serve({ ...config, databaseUrl }, logger, embedded);
    return;
  }

  logger.info({ workers: config.webConcurrency }, 'starting cluster workers');
  cluster.setupPrimary({ silent: false });
  for (let i = 0; i < config.webConcurrency; i++) cluster.fork({ DATABASE_URL: databaseUrl });
  let stopping = false;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.id, code, signal }, 'cluster worker died; starting another');
    cluster.fork({ DATABASE_URL: databaseUrl });
  });
  onShutdown(logger, async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    await embedded?.stop();
  });
}

main().catch((error: unknown) => {
  console.error('Tollgate failed to start:', error);
  process.exit(1);
});
