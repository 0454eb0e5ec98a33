import 'reflect-metadata';
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { createApp } from './app.js';
import { bootstrap, EXIT_CONFIG, listenFailure, type Runtime } from './bootstrap/bootstrap.js';
import { openFileLimitWarning } from './common/net/open-files.js';
import { configAdvisories } from './config/app-config.js';
import { Metrics } from './metrics/metrics.service.js';

/** In-flight requests get this long after SIGTERM; keep it under the orchestrator's grace period. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/** One HTTP server process: the whole service, or one of WEB_CONCURRENCY cluster workers. */
async function serve(runtime: Runtime): Promise<void> {
  const { config, logger } = runtime;
  const app = await createApp(config, logger);
  const metrics = app.get(Metrics);
  // In a cluster the primary serves the metrics, gathered from every worker over IPC.
  if (cluster.isWorker) AggregatorRegistry.setRegistries([metrics.registry]);
  const metricsServer = cluster.isWorker ? undefined : await runtime.startMetrics(metrics.registry);
  runtime.onShutdown(async () => {
    // The listener first: no new requests, the running ones answered. Nest's close() alone would close the
    // database pool (module destroy hooks) before its HTTP server, failing the requests still in flight.
    await app.getHttpAdapter().getInstance().close();
    await app.close();
    await metricsServer?.close();
  }, SHUTDOWN_DEADLINE_MS);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const message = listenFailure(error, 'PORT:', config.host, config.port);
    if (!message) throw error;
    console.error(message);
    await app.close();
    // 78: a cluster primary must not restart a worker that cannot have the port.
    await runtime.fail(EXIT_CONFIG);
  }
  logger.info({ url: `http://${config.host}:${config.port}`, docs: '/docs' }, 'Tollgate is listening');
}

/** WEB_CONCURRENCY > 1: forked workers share the port; this primary restarts any that dies. */
async function superviseCluster(runtime: Runtime): Promise<void> {
  const { config, logger } = runtime;
  logger.info({ workers: config.webConcurrency }, 'starting cluster workers');
  cluster.setupPrimary({ silent: false });
  const env = { DATABASE_URL: config.databaseUrl };
  for (let i = 0; i < config.webConcurrency; i++) cluster.fork(env);
  let stopping = false;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (code === EXIT_CONFIG) {
      logger.fatal({ worker: worker.id }, 'a cluster worker cannot start (its message is above): stopping');
      process.kill(process.pid, 'SIGTERM');
      return;
    }
    logger.error({ worker: worker.id, code, signal }, 'cluster worker died; starting another');
    cluster.fork(env);
  });
  const aggregate = new AggregatorRegistry();
  const metricsServer = await runtime.startMetrics({
    contentType: aggregate.contentType,
    metrics: () => aggregate.clusterMetrics(),
  });
  runtime.onShutdown(async () => {
    stopping = true;
    await metricsServer?.close();
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
  }, SHUTDOWN_DEADLINE_MS);
}

/**
 * The database comes first (the embedded one when DATABASE_URL is unset, started once even in cluster mode), then
 * migrations, then one server or WEB_CONCURRENCY cluster workers sharing the port.
 */
async function main(): Promise<void> {
  if (cluster.isWorker) {
    // The primary started the database, applied the migrations and passed DATABASE_URL down.
    const runtime = await bootstrap({ role: 'server', embeddedDatabase: false, migrate: false });
    await serve({ ...runtime, logger: runtime.logger.child({ worker: cluster.worker?.id }) });
    return;
  }
  const runtime = await bootstrap({ role: 'server', embeddedDatabase: true, migrate: true });
  const openFiles = openFileLimitWarning();
  if (openFiles) runtime.logger.warn(openFiles);
  // Here, not in each cluster worker: one start, one warning.
  for (const advice of configAdvisories(runtime.config)) runtime.logger.warn(advice);
  if (runtime.config.webConcurrency <= 1) await serve(runtime);
  else await superviseCluster(runtime);
}

main().catch((error: unknown) => {
  console.error('Tollgate failed to start:', error);
  process.exit(1);
});
