import { Global, Module } from '@nestjs/common';
import { InvalidationLog } from './invalidation-log.service.js';
import { InvalidationMetrics } from './invalidation-metrics.js';

/**
 * The cache room: the invalidation log every cache of database answers listens to, and through whose barrier the
 * access guard admits each protected request. Global: the features' caches use it, none of them owns it.
 */
@Global()
@Module({ providers: [InvalidationLog, InvalidationMetrics], exports: [InvalidationLog] })
export class CacheModule {}
