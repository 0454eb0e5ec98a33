import { Global, Module } from '@nestjs/common';
import { CacheLeases } from './cache-leases.service.js';
import { InvalidationLog } from './invalidation-log.service.js';
import { InvalidationMetrics } from './invalidation-metrics.js';

/**
 * The cache room: the invalidation log every cache of database answers listens to, through whose barrier the
 * access guard admits each protected request, and the leases that let it skip the barrier
 * (`CACHE_COHERENCE=acknowledged`). Global: the features' caches use it, none of them owns it.
 */
@Global()
@Module({
  providers: [InvalidationLog, CacheLeases, InvalidationMetrics],
  exports: [InvalidationLog, CacheLeases],
})
export class CacheModule {}
