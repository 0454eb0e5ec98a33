import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { Metrics } from '../metrics/metrics.service.js';
import { CacheLeases } from './cache-leases.service.js';
import { InvalidationLog } from './invalidation-log.service.js';

/** A counter that reads its total from `read` when scraped (the services count in plain fields). */
function countedFrom(registry: Registry, name: string, help: string, read: () => number): void {
  const counter: Counter = new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      counter.reset();
      counter.inc(read());
    },
  });
}

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
    const registry = this.metrics.registry;
    const { counts } = this.log;
    countedFrom(
      registry,
      'tollgate_cache_invalidation_reads_total',
      'Reads of the cache invalidation log this instance started (the barrier of protected requests).',
      () => counts.reads,
    );
    countedFrom(
      registry,
      'tollgate_cache_invalidations_applied_total',
      'Cache invalidations (changes committed anywhere) this instance read from the log and applied.',
      () => counts.applied,
    );
    if (!this.leases.enabled) return;
    const leases = this.leases;
    const held: Gauge = new Gauge({
      name: 'tollgate_cache_lease_held',
      help: 'CACHE_COHERENCE=acknowledged: 1 while this instance answers from its caches without reading the log.',
      registers: [registry],
      collect() {
        held.set(leases.current ? 1 : 0);
      },
    });
    countedFrom(
      registry,
      'tollgate_cache_lease_lapses_total',
      'Times this instance found its cache lease ended before it renewed it (paused, or cut off), and joined again.',
      () => leases.counts.lapses,
    );
    countedFrom(
      registry,
      'tollgate_cache_acknowledgement_waits_total',
      'Commits of cached data on this instance that waited for every instance to apply them.',
      () => leases.counts.waits,
    );
    countedFrom(
      registry,
      'tollgate_cache_acknowledgement_wait_seconds_total',
      'Time those commits waited, in all (divide by the waits for the mean).',
      () => leases.counts.waitSeconds,
    );
    countedFrom(
      registry,
      'tollgate_cache_acknowledgement_waits_cut_short_total',
      'Waits ended after one and a half leases without every acknowledgement (the database out of reach).',
      () => leases.counts.waitsCutShort,
    );
  }
}
