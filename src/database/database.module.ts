import {
  type DynamicModule,
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Pool } from 'pg';
import { retryConnecting, startRetryLine } from './connect-retry.js';
import type { DatabaseConnectionOptions } from './data-source.js';
import { DatabaseAvailability } from './database-availability.js';
import { DATABASE_OPTIONS, Database } from './database.service.js';
import { PG_POOL, pgPoolProvider } from './pg-pool.js';
import { DatabasePoolMetrics } from './pool-metrics.js';

const START_TIMEOUT = Symbol('DATABASE_START_TIMEOUT');

export interface DatabaseModuleOptions extends DatabaseConnectionOptions {
  /** How long the start retries a database it cannot connect to (retryConnecting); 0 or unset: no retry. */
  startTimeoutMs?: number;
}

/** The application's `pg` pool (`PG_POOL`), its metrics, and the `Database` the repositories query through. */
@Global()
@Module({})
export class DatabaseModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(START_TIMEOUT) private readonly startTimeoutMs: number,
  ) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: START_TIMEOUT, useValue: options.startTimeoutMs ?? 0 },
        DatabaseAvailability,
        pgPoolProvider(options),
        { provide: DATABASE_OPTIONS, useValue: options },
        Database,
        DatabasePoolMetrics,
      ],
      exports: [PG_POOL, Database, DatabaseAvailability],
    };
  }

  // A process that cannot reach its database within the start timeout stops at start (the orchestrator restarts
  // it) instead of listening and answering 503s; until then it retries (not up yet, no connection slot left).
  async onModuleInit(): Promise<void> {
    const logger = new Logger('Database');
    await retryConnecting(() => this.pool.query('SELECT 1'), {
      withinMs: this.startTimeoutMs,
      onRetry: (retry) => logger.warn(startRetryLine(retry)),
    });
  }

  // After the HTTP server has stopped and the workers with it: nothing needs a connection any more.
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
