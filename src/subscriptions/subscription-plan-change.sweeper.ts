import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { Database } from '../database/database.service.js';
import { Sweeper } from '../database/sweeper.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import { entitlementsEvent, planChangedEvent } from './subscription-events.js';
import { SubscriptionPlanReader } from './subscription-plans.js';
import { toSubscriptionDto } from './subscription-view.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';

/** As often as the expiry sweep: a scheduled change takes effect within this of its date. */
export const PLAN_CHANGE_SWEEP_INTERVAL_MS = 5_000;
/** Changes applied per transaction; a sweep keeps going while batches come back full. */
const SWEEP_BATCH_SIZE = 100;

/**
 * Background job (only where `workersEnabled`) that applies the changes of plan scheduled for a period end
 * (`pendingPlan`) once their date has come: the row moves to the plan, with its `plan_changed` history entry, its
 * `subscription.plan_changed` event and, when the features in force change, `entitlements.updated`. Several
 * instances may sweep at once; the claim in `applyDuePlanChanges` applies each change exactly once. A renewal that
 * arrives first applies a change that fell due itself (SubscriptionsRepository.credit).
 */
@Injectable()
export class SubscriptionPlanChangeSweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly plans: SubscriptionPlanReader,
  ) {
    super({
      enabled: config.workersEnabled,
      intervalMs: PLAN_CHANGE_SWEEP_INTERVAL_MS,
      name: 'plan change sweep',
    });
  }

  protected sweep(): Promise<void> {
    return this.drain(() => this.applyDue(), SWEEP_BATCH_SIZE, 'applied scheduled plan changes');
  }

  /** Claims a batch of due changes and records their history entries and events, in one transaction. */
  private applyDue(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { applied, now } = await this.subscriptions.applyDuePlanChanges(tx, SWEEP_BATCH_SIZE);
      for (const { stored, change } of applied) {
        const previous = await this.plans.plan(change.from, tx);
        const after = await this.plans.of(stored, tx);
        const subscription = toSubscriptionDto(stored.address, stored, now, after);
        const event = planChangedEvent(
          subscription,
          {
            address: stored.address,
            now,
            previousPeriodEnd: stored.currentPeriodEnd,
            effectiveAt: change.at,
            scheduled: true,
          },
          previous,
        );
        await this.outbox.record(tx, event);
        // Features are in force only while the subscription runs: one that ended with the change keeps none.
        const was = subscription.active ? previous.features : [];
        const entitlements = entitlementsEvent(was, subscription, now);
        if (entitlements) await this.outbox.record(tx, entitlements);
      }
      return applied.length;
    });
  }
}
