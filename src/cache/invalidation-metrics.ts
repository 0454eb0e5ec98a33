import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Metrics } from '../metrics/metrics.service.js';
import { InvalidationLog } from './invalidation-log.service.js';

/**
 * What keeping the caches exact costs this instance: reads of the invalidation log (one per batch of protected
 * requests, none when idle) and the invalidations they applied, read when scraped.
 */
@Injectable()
export class InvalidationMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly log: InvalidationLog,
  ) {}

  onModuleInit(): void {
    const { counts } = this.log;
    const reads: Counter = new Counter({
      name: 'tollgate_cache_invalidation_reads_total',
      help: 'Reads of the cache invalidation log this instance started (the barrier of protected requests).',
      registers: [this.metrics.registry],
      collect() {
        reads.reset();
        reads.inc(counts.reads);
      },
    });
    const applied: Counter = new Counter({
      name: 'tollgate_cache_invalidations_applied_total',
      help: 'Cache invalidations (changes committed anywhere) this instance read from the log and applied.',
      registers: [this.metrics.registry],
      collect() {
        applied.reset();
        applied.inc(counts.applied);
      },
    });
  }
}
