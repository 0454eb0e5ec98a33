import { Injectable } from '@nestjs/common';
import { CACHE_TOPICS } from '../cache/cache-topics.js';
import { InvalidatedCache } from '../cache/invalidated-cache.js';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import { SubscriptionsRepository, type StoredSubscription } from './subscriptions.repository.js';

interface CachedRow {
  subscription: StoredSubscription | null;
}

/**
 * The stored subscription rows behind `GET /subscriptions/status`, cached per address and invalidated on every
 * instance by the change's own transaction (the subscriptions trigger writes the invalidation). Only the stored timestamps are cached: the status is still computed
 * at read time, so a period that runs out is seen at once, cache or not.
 */
@Injectable()
export class SubscriptionReads {
  private readonly rows: InvalidatedCache<CachedRow>;

  constructor(
    private readonly repository: SubscriptionsRepository,
    log: InvalidationLog,
  ) {
    this.rows = new InvalidatedCache<CachedRow>(log, {
      topic: CACHE_TOPICS.subscription,
      maxEntries: 200_000,
      ttlMs: 300_000,
    });
  }

  /** The stored row of a (lowercase) address, or null when it never subscribed. */
  async find(address: string): Promise<StoredSubscription | null> {
    const cached = await this.rows.getOrLoad(address, async () => ({
      subscription: await this.repository.find(address),
    }));
    return cached!.subscription;
  }
}
