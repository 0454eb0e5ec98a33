import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { Metrics } from '../metrics/metrics.service.js';
import { PG_POOL } from './pg-pool.js';

/** The application pool's connections, read when scraped. */
@Injectable()
export class DatabasePoolMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge(
      'tollgate_db_pool_connections',
      'Connections of the application database pool by state: total, idle, and waiting (requests queued for one).',
      ['state'],
      (set) => {
        set(this.pool.totalCount, { state: 'total' });
        set(this.pool.idleCount, { state: 'idle' });
        set(this.pool.waitingCount, { state: 'waiting' });
      },
    );
  }
}
