import { Inject, Injectable } from '@nestjs/common';
import { Sweeper } from '../database/sweeper.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { Database } from '../database/database.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import { expiryEvents } from './subscription-events.js';
import { SubscriptionPlanReader } from './subscription-plans.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';

/** How often the sweep runs: well inside the documented 60 s between a period's end and its event. */
export const EXPIRY_SWEEP_INTERVAL_MS = 5_000;
/** Expiries recorded per transaction; a sweep keeps going while batches come back full. */
const SWEEP_BATCH_SIZE = 100;

/**
 * Background job (only where `workersEnabled`) that records `subscription.expired` for every period that ran out.
 * Status never waits for it: it is computed at read time. Several instances may sweep at once; the claim in
 * `recordDueExpiries` keeps each period end's event to exactly one.
 */
@Injectable()
export class SubscriptionExpirySweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly plans: SubscriptionPlanReader,
  ) {
    super({ enabled: config.workersEnabled, intervalMs: EXPIRY_SWEEP_INTERVAL_MS, name: 'expiry sweep' });
  }

  protected sweep(): Promise<void> {
    return this.drain(() => this.recordDue(), SWEEP_BATCH_SIZE, 'recorded subscription expiries');
  }

  /** Claims a batch of ended periods and records their history entries and events, in one transaction. */
  private recordDue(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { expired, now } = await this.subscriptions.recordDueExpiries(tx, SWEEP_BATCH_SIZE);
      for (const subscription of expired) {
        const plans = await this.plans.of(subscription);
        for (const event of expiryEvents(subscription, now, plans)) await this.outbox.record(tx, event);
      }
      return expired.length;
    });
  }
}
