import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import type { ChargeExecutor } from '../../src/auto-renew/charge-executor.js';
import { loadAppConfig, type AppConfig } from '../../src/config/app-config.js';
import { runMigrations } from '../../src/database/migrate.js';
import { truncateAll, workerDatabaseUrl } from './test-database.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!';

/**
 * The public origin every test instance signs in under, as the instances of one deployment share one. Left unset,
 * AUTH_DOMAIN and AUTH_URI would follow each instance's own port, and a challenge issued by one would not verify
 * on another.
 */
export const TEST_ORIGIN = { AUTH_DOMAIN: 'localhost:3000', AUTH_URI: 'http://localhost:3000' };

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  /** http://127.0.0.1:<port> */
  url: string;
  databaseUrl: string;
  /** Every log line the instance wrote, as parsed JSON. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Keep the tables as they are (a second instance on the same database, a restart). */
  keepData?: boolean;
  /** Listen on this port instead of any free one (the browser tests put the origin in AUTH_URI first). */
  port?: number;
  /** Automatic renewal's executor of charges, in place of the gateway's (a test's scripted outcomes). */
  chargeExecutor?: ChargeExecutor;
}

/** Apps of this test file still open (jest loads modules, passport included, once per file). */
let openApps = 0;

/**
 * Boots the real application over HTTP on a loopback port against this worker's PostgreSQL database. One at a time
 * per test file: passport keeps strategies in one registry per process, by name, so a second app in the same
 * process would authenticate with the last one's strategies. Start further instances as processes
 * (`startServiceProcess`).
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  if (openApps > 0) {
    throw new Error(
      'another test app is still open in this process: start this instance with startServiceProcess',
    );
  }
  const databaseUrl = await workerDatabaseUrl();
  await runMigrations(databaseUrl);
  if (!options.keepData) await truncateAll(databaseUrl);

  const config = loadAppConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '5',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-test-data-')),
    JWT_SECRET: TEST_JWT_SECRET,
    LOG_LEVEL: 'info',
    ...TEST_ORIGIN,
    ...options.env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  const logger = pino({ level: config.logLevel }, sink);
  const app = await createApp(
    config,
    logger,
    options.chargeExecutor ? { chargeExecutor: options.chargeExecutor } : {},
  );
  openApps++;
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    openApps--;
    await app.close();
  };
  return { app, config, url: `http://127.0.0.1:${port}`, databaseUrl, logs, close };
}
