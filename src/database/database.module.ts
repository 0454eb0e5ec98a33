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
import { DatabaseSession } from './database-session.js';
import { DATABASE_OPTIONS, Database } from './database.service.js';
import { PG_POOL, pgPoolProvider } from './pg-pool.js';
import { DatabasePoolMetrics } from './pool-metrics.js';

export interface DatabaseModuleOptions extends DatabaseConnectionOptions {
  /** How long the start retries a database it cannot connect to (retryConnecting); 0 or unset: no retry. */
  startTimeoutMs?: number;
}

/**
 * The application's `pg` pool (`PG_POOL`), its metrics, the `Database` the repositories query through, and the
 * process's own session (`DatabaseSession`).
 */
@Global()
@Module({})
export class DatabaseModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(DATABASE_OPTIONS) private readonly options: DatabaseModuleOptions,
  ) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        DatabaseAvailability,
        pgPoolProvider(options),
        { provide: DATABASE_OPTIONS, useValue: options },
        Database,
        DatabaseSession,
        DatabasePoolMetrics,
      ],
      exports: [PG_POOL, Database, DatabaseAvailability, DatabaseSession],
    };
  }

  // A process that cannot reach its database within the start timeout stops at start (the orchestrator restarts
  // it) instead of listening and answering 503s; until then it retries (not up yet, no connection slot left).
  async onModuleInit(): Promise<void> {
    const logger = new Logger('Database');
    const { rows } = await retryConnecting(
      () => this.pool.query<{ statement_timeout: string }>('SHOW statement_timeout'),
      { withinMs: this.options.startTimeoutMs ?? 0, onRetry: (retry) => logger.warn(startRetryLine(retry)) },
    );
    // Behind a transaction pooler only transactions set their own timeout (SET LOCAL); a single statement has the
    // server's default, which only the operator can set.
    if (this.options.pooler === 'transaction' && rows[0]?.statement_timeout === '0') {
      logger.warn(
        'DATABASE_POOLER=transaction: statements outside a transaction run without a statement timeout, as the ' +
          "server's default is none: set one for the role, ALTER ROLE <role> SET statement_timeout = '15s' " +
          '(docs/operations.md, "Connection budget and PgBouncer")',
      );
    }
  }

  // After the HTTP server has stopped and the workers with it: nothing needs a connection any more.
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
