import {
  type DynamicModule,
  Global,
  Inject,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Pool } from 'pg';
import type { DatabaseConnectionOptions } from './data-source.js';
import { DatabaseAvailability } from './database-availability.js';
import { Database } from './database.service.js';
import { PG_POOL, pgPoolProvider } from './pg-pool.js';
import { DatabasePoolMetrics } from './pool-metrics.js';

/** The application's `pg` pool (`PG_POOL`), its metrics, and the `Database` the repositories query through. */
@Global()
@Module({})
export class DatabaseModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  static forRoot(options: DatabaseConnectionOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [DatabaseAvailability, pgPoolProvider(options), Database, DatabasePoolMetrics],
      exports: [PG_POOL, Database, DatabaseAvailability],
    };
  }

  // Fail fast: a process that cannot reach its database stops at start (the orchestrator restarts it) instead of
  // listening and answering 503s.
  async onModuleInit(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  // After the HTTP server has stopped and the workers with it: nothing needs a connection any more.
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
