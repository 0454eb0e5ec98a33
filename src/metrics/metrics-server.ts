import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** What the listener serves: one registry, or in cluster mode the aggregate of the workers' registries. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface MetricsServer {
  /** The bound port (the configured one, or the one chosen for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in Prometheus' text format on a listener of its own (METRICS_HOST:METRICS_PORT, loopback by
 * default), so the public port never exposes it and the scraper needs no credential.
 */
export async function startMetricsServer(
  source: MetricsSource,
  host: string,
  port: number,
  logger: Logger,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('GET /metrics\n');
      return;
    }
    source.metrics().then(
      (text) => response.writeHead(200, { 'content-type': source.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  logger.info({ url: `http://${host}:${bound}/metrics` }, 'metrics listener started');
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
