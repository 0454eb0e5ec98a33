import { Inject, Injectable } from '@nestjs/common';
import { Sweeper } from '../../common/jobs/sweeper.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { Database } from '../../database/database.service.js';
import { EventOutbox } from '../../events/event-outbox.service.js';
import { expiringEvent } from '../subscription-events.js';
import { SubscriptionRemindersRepository } from './subscription-reminders.repository.js';

/** How often due reminders are looked for: a reminder goes out a few seconds after its period enters the notice. */
export const REMINDER_SWEEP_INTERVAL_MS = 5_000;
/** Reminders recorded per transaction; a sweep keeps going while batches come back full. */
const SWEEP_BATCH_SIZE = 100;

/**
 * Background job (only where `workersEnabled`) that records `subscription.expiring` once per period end, when an
 * active period that is not canceled at its end comes within SUBSCRIPTION_EXPIRING_NOTICE_HOURS of it. Several
 * instances may sweep at once: the `subscription_reminders` primary key keeps each period end's reminder to exactly
 * one, and a renewal, which moves the period end, arms the next one.
 */
@Injectable()
export class SubscriptionReminderSweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly repository: SubscriptionRemindersRepository,
  ) {
    super({ enabled: config.workersEnabled, intervalMs: REMINDER_SWEEP_INTERVAL_MS, name: 'reminder sweep' });
  }

  protected async sweep(): Promise<void> {
    await this.drain(() => this.recordDue(), SWEEP_BATCH_SIZE, 'recorded subscription reminders');
    await this.repository.deleteStale(SWEEP_BATCH_SIZE);
  }

  /** Claims a batch of due reminders and records their events, in one transaction: both or neither commit. */
  private recordDue(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const claimed = await this.repository.claimDue(
        tx,
        this.config.subscriptionExpiringNoticeHours,
        SWEEP_BATCH_SIZE,
      );
      for (const { subscription, now } of claimed) {
        await this.outbox.record(tx, expiringEvent(subscription, now));
      }
      return claimed.length;
    });
  }
}
