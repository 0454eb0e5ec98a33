import { Injectable } from '@nestjs/common';
import { CACHE_TOPICS } from '../cache/cache-topics.js';
import { InvalidatedCache } from '../cache/invalidated-cache.js';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import { AutoRenewRepository, type StoredMandate } from './auto-renew.repository.js';

interface CachedMandate {
  mandate: StoredMandate | null;
}

/**
 * A wallet's enabled mandate behind a cache invalidated on every instance by the changing transaction (the
 * mandates' trigger, migration MandateCacheInvalidations): every status and entitlements read shows the automatic
 * renewal. Correct as of the access guard's barrier, so only for a request the guard admitted (through
 * SubscriptionAutoRenew.ofCached); jobs and write paths read the repository.
 */
@Injectable()
export class MandateReads {
  private readonly mandates: InvalidatedCache<CachedMandate>;

  constructor(
    private readonly repository: AutoRenewRepository,
    log: InvalidationLog,
  ) {
    this.mandates = new InvalidatedCache<CachedMandate>(log, {
      topic: CACHE_TOPICS.mandate,
      maxEntries: 100_000,
      ttlMs: 300_000,
    });
  }

  /** The enabled mandate of `address` (lowercase), or null. */
  async findEnabled(address: string): Promise<StoredMandate | null> {
    const cached = await this.mandates.getOrLoad(address, async () => ({
      mandate: await this.repository.findEnabled(address),
    }));
    return cached!.mandate;
  }
}
