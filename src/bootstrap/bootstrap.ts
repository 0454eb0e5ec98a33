import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { JwtSecretFileError, resolveJwtSecret } from '../auth/jwt-secret.js';
import { createLogger } from '../common/logging/logger.js';
import { ConfigValidationError, loadAppConfig, type AppConfig } from '../config/app-config.js';
import { DataDirInUse } from '../database/data-dir-owner.js';
import {
  EmbeddedPostgresUnavailable,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from '../database/embedded-postgres.js';
import { retryConnecting, startRetryLine } from '../database/connect-retry.js';
import { runMigrations } from '../database/migrate.js';
import { startMetricsServer, type MetricsServer, type MetricsSource } from '../metrics/metrics-server.js';
import { endOfLifeWarning } from './node-line.js';
import { tracing } from '../tracing/tracing.js';

/** sysexits' EX_CONFIG: an orchestrator should not restart a process that will fail the same way again. */
export const EXIT_CONFIG = 78;

/** The configuration once the database is known: every process below this point has a database URL. */
export type RunningConfig = AppConfig & { readonly databaseUrl: string };

export interface Runtime {
  readonly config: RunningConfig;
  readonly logger: Logger;
  /**
   * Runs `stop` on SIGTERM or SIGINT (once), then stops the embedded PostgreSQL if this process started it, then
   * exits: 0, or 1 when stopping failed or took longer than `deadlineMs`.
   */
  onShutdown(stop: () => Promise<void>, deadlineMs: number): void;
  /** Stops what bootstrap started (the embedded PostgreSQL) and exits with `code`: for a failed start. */
  fail(code: number): Promise<never>;
  /** The metrics listener when METRICS_PORT is set (a taken port ends the start with one line). */
  startMetrics(source: MetricsSource): Promise<MetricsServer | undefined>;
}

export interface BootstrapOptions {
  /** Which entry point, for the messages. */
  readonly role: 'server' | 'worker';
  /** Whether this process may start the embedded PostgreSQL when DATABASE_URL is unset. */
  readonly embeddedDatabase: boolean;
  /** Whether to apply the migrations (a cluster worker leaves it to its primary). */
  readonly migrate: boolean;
}

function configError(problems: string[]): never {
  console.error(new ConfigValidationError(problems).message);
  process.exit(EXIT_CONFIG);
}

function loadConfigOrExit(): AppConfig {
  try {
    return loadAppConfig();
  } catch (error) {
    if (error instanceof ConfigValidationError) configError(error.problems);
    throw error;
  }
}

/**
 * Readable, coloured lines when a person watches the output (a terminal) and pino-pretty is installed (a
 * development dependency); one JSON object per line otherwise, for log collectors.
 */
async function processLogger(level: string): Promise<Logger> {
  if (!process.stdout.isTTY) return createLogger(level);
  try {
    const { default: pretty } = await import('pino-pretty');
    return createLogger(
      level,
      pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }),
    );
  } catch {
    return createLogger(level);
  }
}

/**
 * What main.ts (HTTP server) and worker.ts (background workers only) share: the configuration (exit 78 on a bad
 * one), the logger, the database (DATABASE_URL or the embedded PostgreSQL), the migrations, and the stop sequence.
 */
export async function bootstrap(options: BootstrapOptions): Promise<Runtime> {
  const config = loadConfigOrExit();
  const logger = await processLogger(config.logLevel);
  // Once per start: cluster workers run the same Node.js as their primary.
  const endOfLife = cluster.isPrimary ? endOfLifeWarning(process.version) : undefined;
  if (endOfLife) logger.warn({ node: process.version }, endOfLife);

  if (options.migrate) {
    // Before anything is started or forked: a bad stored secret stops the start here (not in each cluster worker,
    // which the primary would restart forever), and a generated one exists before the workers, which all read it.
    try {
      resolveJwtSecret(config);
    } catch (error) {
      if (error instanceof JwtSecretFileError) configError([error.message]);
      throw error;
    }
  }

  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    // The embedded database belongs to the HTTP process, which then runs the workers itself.
    if (!options.embeddedDatabase) configError([`DATABASE_URL: required by the standalone ${options.role}`]);
    try {
      embedded = await startEmbeddedPostgres(config.dataDir, logger);
    } catch (error) {
      if (error instanceof EmbeddedPostgresUnavailable) configError([`DATABASE_URL: ${error.message}`]);
      if (error instanceof DataDirInUse) {
        // Not a restart case either: the same start fails the same way while that owner runs.
        console.error(error.message);
        process.exit(EXIT_CONFIG);
      }
      throw error;
    }
    databaseUrl = embedded.url;
  }

  const fail = async (code: number): Promise<never> => {
    await embedded?.stop();
    process.exit(code);
  };
  if (options.migrate) {
    try {
      const url = databaseUrl;
      const applied = await retryConnecting(() => runMigrations(url, config.databasePooler), {
        withinMs: config.databaseStartTimeoutMs,
        onRetry: (retry) => logger.warn({ reason: retry.reason }, startRetryLine(retry)),
      });
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    } catch (error) {
      logger.fatal({ err: error }, 'applying the migrations failed');
      return fail(1);
    }
  }

  let stopping = false;
  const onShutdown = (stop: () => Promise<void>, deadlineMs: number): void => {
    const shutdown = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      setTimeout(() => {
        logger.error(`shutdown took longer than ${deadlineMs / 1000} s, exiting anyway`);
        process.exit(1);
      }, deadlineMs).unref();
      // The database goes last: the requests and jobs still running need it until they finish. The spans of all
      // that are sent after it.
      stop()
        .then(() => embedded?.stop())
        .then(() => tracing().shutdown())
        .then(
          () => {
            logger.info('stopped');
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            void fail(1);
          },
        );
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  };

  const startMetrics = async (source: MetricsSource): Promise<MetricsServer | undefined> => {
    const { metricsPort, metricsHost } = config;
    if (metricsPort === undefined) return undefined;
    try {
      return await startMetricsServer(source, metricsHost, metricsPort, logger);
    } catch (error) {
      const message = listenFailure(error, 'METRICS_PORT:', metricsHost, metricsPort);
      if (!message) throw error;
      console.error(message);
      return fail(EXIT_CONFIG);
    }
  };

  return { config: { ...config, databaseUrl }, logger, onShutdown, fail, startMetrics };
}

/** The one line a person needs when a port is taken, instead of a stack trace. */
export function listenFailure(error: unknown, what: string, host: string, port: number): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    return `${what} port ${port} on ${host} is already in use (another Tollgate or another program): stop it or choose another port.`;
  }
  if (code === 'EACCES')
    return `${what} port ${port} on ${host} needs privileges this process lacks: choose a port above 1023.`;
  if (code === 'EADDRNOTAVAIL') return `${what} address ${host} is not an address of this machine.`;
  return undefined;
}
