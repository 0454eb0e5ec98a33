import { Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { Database } from '../database/database.service.js';
import { Metrics } from './metrics.service.js';

/** The application pool's connections, read when scraped. */
@Injectable()
class DatabasePoolMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly db: Database,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge(
      'tollgate_db_pool_connections',
      'Connections of the application database pool by state: total, idle, and waiting (requests queued for one).',
      ['state'],
      (set) => {
        const { total, idle, waiting } = this.db.poolUse();
        set(total, { state: 'total' });
        set(idle, { state: 'idle' });
        set(waiting, { state: 'waiting' });
      },
    );
  }
}

@Global()
@Module({ providers: [Metrics, DatabasePoolMetrics], exports: [Metrics] })
export class MetricsModule {}
