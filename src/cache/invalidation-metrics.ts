import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics.service.js';
import { CacheLeases } from './cache-leases.service.js';
import { InvalidationLog } from './invalidation-log.service.js';

/**
 * What keeping the caches exact costs this instance: reads of the invalidation log (one per batch of protected
 * requests with the barrier, none when idle; per write and per second with acknowledged writes), the invalidations
 * they applied, and with acknowledged writes the lease and the writers' waits, read when scraped.
 */
@Injectable()
export class InvalidationMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly log: InvalidationLog,
    private readonly leases: CacheLeases,
  ) {}

  onModuleInit(): void {
    const metrics = this.metrics;
    const { counts } = this.log;
    metrics.counter(
      'tollgate_cache_invalidation_reads_total',
      'Reads of the cache invalidation log this instance started (the barrier of protected requests).',
      () => counts.reads,
    );
    metrics.counter(
      'tollgate_cache_invalidations_applied_total',
      'Cache invalidations (changes committed anywhere) this instance read from the log and applied.',
      () => counts.applied,
    );
    if (!this.leases.enabled) return;
    const leases = this.leases;
    metrics.gauge(
      'tollgate_cache_lease_held',
      'CACHE_COHERENCE=acknowledged: 1 while this instance answers from its caches without reading the log.',
      [],
      (set) => set(leases.current ? 1 : 0),
    );
    metrics.counter(
      'tollgate_cache_lease_lapses_total',
      'Times this instance found its cache lease ended before it renewed it (paused, or cut off), and joined again.',
      () => leases.counts.lapses,
    );
    metrics.counter(
      'tollgate_cache_acknowledgement_waits_total',
      'Commits of cached data on this instance that waited for every instance to apply them.',
      () => leases.counts.waits,
    );
    metrics.counter(
      'tollgate_cache_acknowledgement_wait_seconds_total',
      'Time those commits waited, in all (divide by the waits for the mean).',
      () => leases.counts.waitSeconds,
    );
    metrics.counter(
      'tollgate_cache_acknowledgement_waits_cut_short_total',
      'Waits ended after one and a half leases without every acknowledgement (the database out of reach).',
      () => leases.counts.waitsCutShort,
    );
  }
}
