import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';
import { InvalidatedCache } from '../database/invalidated-cache.js';
import { NotificationBus } from '../database/notification-bus.service.js';
import type { StoredSubscription } from './subscription-view.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';

const TOPIC = 'subscription';

interface CachedRow {
  subscription: StoredSubscription | null;
}

/**
 * The stored subscription rows behind `GET /subscriptions/status`, cached per address and forgotten on every
 * instance the moment a change commits (LISTEN/NOTIFY). Only the stored timestamps are cached: the status itself is
 * still computed at read time, so a period that runs out is seen at once, cache or not.
 */
@Injectable()
export class SubscriptionReads {
  private readonly rows: InvalidatedCache<CachedRow>;
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly repository: SubscriptionsRepository,
    private readonly bus: NotificationBus,
  ) {
    this.rows = new InvalidatedCache<CachedRow>(bus, { topic: TOPIC, maxEntries: 200_000, ttlMs: 300_000 });
  }

  /** The stored row of a (lowercase) address, or null when it never subscribed. */
  async find(address: string): Promise<StoredSubscription | null> {
    const cached = await this.rows.getOrLoad(address, async () => ({
      subscription: await this.repository.find(address),
    }));
    return cached!.subscription;
  }

  /** Announces, in the changing transaction, that the address's row changes when it commits. */
  async changed(tx: SqlExecutor, address: string): Promise<void> {
    const payload = `${TOPIC}:${address}`;
    const delivered = this.bus.delivered(payload);
    this.inFlight.set(address, delivered);
    void delivered.finally(() => {
      if (this.inFlight.get(address) === delivered) this.inFlight.delete(address);
    });
    await this.bus.publish(payload, tx);
    this.rows.invalidate(address);
  }

  /**
   * After the commit: forgets the row here and waits until the change's notification is back, so that no instance
   * answers from the old row once the caller has its response.
   */
  async settle(address: string): Promise<void> {
    this.rows.invalidate(address);
    await this.inFlight.get(address);
  }
}
