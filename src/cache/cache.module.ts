import { Global, Module } from '@nestjs/common';
import { InvalidationLog } from './invalidation-log.service.js';

/**
 * The cache room: the invalidation log every cache of database answers listens to, and the request-scoped ticket
 * those caches share. Global: the features' caches use it, none of them owns it.
 */
@Global()
@Module({ providers: [InvalidationLog], exports: [InvalidationLog] })
export class CacheModule {}
