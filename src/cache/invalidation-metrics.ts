import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Metrics } from '../metrics/metrics.service.js';
import { CacheLeases } from './cache-leases.service.js';
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
    private readonly leases: CacheLeases,
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
    if (!this.leases.enabled) return;
    const leases = this.leases;
    const held: Gauge = new Gauge({
      name: 'tollgate_cache_lease_held',
      help: 'CACHE_COHERENCE=acknowledged: 1 while this instance answers from its caches without reading the log.',
      registers: [this.metrics.registry],
      collect() {
        held.set(leases.current ? 1 : 0);
      },
    });
    const lapses: Counter = new Counter({
      name: 'tollgate_cache_lease_lapses_total',
      help: 'Times this instance found its cache lease ended before it renewed it (paused, or cut off), and joined again.',
      registers: [this.metrics.registry],
      collect() {
        lapses.reset();
        lapses.inc(leases.counts.lapses);
      },
    });
    const waits: Counter = new Counter({
      name: 'tollgate_cache_acknowledgement_waits_total',
      help: 'Commits of cached data on this instance that waited for every instance to apply them.',
      registers: [this.metrics.registry],
      collect() {
        waits.reset();
        waits.inc(leases.counts.waits);
      },
    });
    const waitSeconds: Counter = new Counter({
      name: 'tollgate_cache_acknowledgement_wait_seconds_total',
      help: 'Time those commits waited, in all (divide by the waits for the mean).',
      registers: [this.metrics.registry],
      collect() {
        waitSeconds.reset();
        waitSeconds.inc(leases.counts.waitSeconds);
      },
    });
    const cutShort: Counter = new Counter({
      name: 'tollgate_cache_acknowledgement_waits_cut_short_total',
      help: 'Waits ended after one and a half leases without every acknowledgement (the database out of reach).',
      registers: [this.metrics.registry],
      collect() {
        cutShort.reset();
        cutShort.inc(leases.counts.waitsCutShort);
      },
    });
  }
}
