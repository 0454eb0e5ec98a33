import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';
import { InvalidatedCache } from '../database/invalidated-cache.js';
import { InvalidationLog, type InvalidationTicket } from '../database/invalidation-log.service.js';
import type { StoredSubscription } from './subscription-view.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';

interface CachedRow {
  subscription: StoredSubscription | null;
}

/**
 * The stored subscription rows behind `GET /subscriptions/status`, cached per address and invalidated on every
 * instance by the change's own transaction. Only the stored timestamps are cached: the status is still computed
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
      topic: 'subscription',
      maxEntries: 200_000,
      ttlMs: 300_000,
    });
  }

  /** The stored row of a (lowercase) address, or null when it never subscribed. */
  async find(address: string, ticket?: InvalidationTicket): Promise<StoredSubscription | null> {
    const cached = await this.rows.getOrLoad(
      address,
      async () => ({ subscription: await this.repository.find(address) }),
      { ticket },
    );
    return cached!.subscription;
  }

  /** Records, in the changing transaction, that the address's row changes when it commits. */
  changed(tx: SqlExecutor, address: string): Promise<void> {
    return this.rows.publish(tx, address);
  }
}
