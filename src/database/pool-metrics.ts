import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { Counter } from 'prom-client';
import { Metrics } from '../metrics/metrics.service.js';
import { DatabaseAvailability } from './database-availability.js';
import { PG_POOL } from './pg-pool.js';

/**
 * The application pool's connections, the queries waiting for one, and its connection-level failures by reason,
 * read when scraped.
 */
@Injectable()
export class DatabasePoolMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly availability: DatabaseAvailability,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge(
      'tollgate_db_pool_open_connections',
      'Open connections of the application database pool, in use or idle; they sum to the open connections.',
      ['state'],
      (set) => {
        set(this.pool.totalCount - this.pool.idleCount, { state: 'in_use' });
        set(this.pool.idleCount, { state: 'idle' });
      },
    );
    this.metrics.gauge(
      'tollgate_db_pool_waiting_requests',
      'Queries queued for a connection of the application database pool (all of them in use).',
      [],
      (set) => set(this.pool.waitingCount),
    );
    // Deprecated: summing its states counts connections twice and requests as connections. Kept for one release
    // beside the two above (docs/operations.md).
    this.metrics.gauge(
      'tollgate_db_pool_connections',
      'Deprecated, use tollgate_db_pool_open_connections and tollgate_db_pool_waiting_requests.',
      ['state'],
      (set) => {
        set(this.pool.totalCount, { state: 'total' });
        set(this.pool.idleCount, { state: 'idle' });
        set(this.pool.waitingCount, { state: 'waiting' });
      },
    );
    const { failures } = this.availability;
    const counter: Counter<'reason'> = new Counter({
      name: 'tollgate_db_connection_failures_total',
      help:
        'Statements and connections that failed at the connection level, by reason: unreachable (the database is ' +
        'down or cut off) or too_many_connections (no connection slot left: the connection budget is exceeded).',
      labelNames: ['reason'],
      registers: [this.metrics.registry],
      collect() {
        counter.reset();
        for (const [reason, count] of Object.entries(failures)) counter.inc({ reason }, count);
      },
    });
  }
}
