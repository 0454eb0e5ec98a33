import { Inject, Injectable } from '@nestjs/common';
import { Sweeper } from '../../database/sweeper.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { Database } from '../../database/database.service.js';
import { EventOutbox } from '../../events/event-outbox.service.js';
import { expiringEvent, trialWillEndEvent } from '../subscription-events.js';
import { SubscriptionPlanReader } from '../subscription-plans.js';
import { SubscriptionRemindersRepository } from './subscription-reminders.repository.js';

/** How often due reminders are looked for: a reminder goes out a few seconds after its period enters the notice. */
export const REMINDER_SWEEP_INTERVAL_MS = 5_000;
/** Reminders recorded per transaction; a sweep keeps going while batches come back full. */
const SWEEP_BATCH_SIZE = 100;
/**
 * How often the rows of past period ends are deleted. A row only keeps its period end from being reminded of twice,
 * which cannot happen once the period has ended, and a subscription adds at most one per period: an hour late is
 * nothing.
 */
const REMINDER_PURGE_INTERVAL_MS = 3_600_000;
/** Rows deleted per statement; a purge keeps going while batches come back full. */
const PURGE_BATCH_SIZE = 1000;

/**
 * Background job (only where `workersEnabled`) that records `subscription.expiring` once per period end, when an
 * active period that is not canceled at its end comes within SUBSCRIPTION_EXPIRING_NOTICE_HOURS of it, and
 * `subscription.trial_will_end` once per trial, when a trial comes as close to its end. Several instances may sweep at
 * once: the `subscription_reminders` primary key keeps each period end's reminder to exactly one, and a renewal,
 * which moves the period end, arms the next one; `subscription_trials.reminded_at` keeps each trial's to one.
 */
@Injectable()
export class SubscriptionReminderSweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly repository: SubscriptionRemindersRepository,
    private readonly plans: SubscriptionPlanReader,
  ) {
    super({ enabled: config.workersEnabled, intervalMs: REMINDER_SWEEP_INTERVAL_MS, name: 'reminder sweep' });
  }

  protected async sweep(): Promise<void> {
    await this.drain(() => this.recordDue(), SWEEP_BATCH_SIZE, 'recorded subscription reminders');
    await this.drain(() => this.recordTrialsDue(), SWEEP_BATCH_SIZE, 'recorded trial reminders');
  }

  /** Claims a batch of due trial reminders and records their events, in one transaction. */
  private recordTrialsDue(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const claimed = await this.repository.claimTrialsDue(
        tx,
        this.config.subscriptionExpiringNoticeHours,
        SWEEP_BATCH_SIZE,
      );
      for (const { subscription, now } of claimed) {
        await this.outbox.record(
          tx,
          trialWillEndEvent(subscription, now, await this.plans.of(subscription, tx)),
        );
      }
      return claimed.length;
    });
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
        await this.outbox.record(tx, expiringEvent(subscription, now, await this.plans.of(subscription, tx)));
      }
      return claimed.length;
    });
  }
}

/** Background job (only where `workersEnabled`) that deletes the reminder rows of period ends long gone. */
@Injectable()
export class SubscriptionReminderPurgeSweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: SubscriptionRemindersRepository,
  ) {
    super({ enabled: config.workersEnabled, intervalMs: REMINDER_PURGE_INTERVAL_MS, name: 'reminder purge' });
  }

  protected sweep(): Promise<void> {
    return this.drain(
      () => this.repository.deleteStale(PURGE_BATCH_SIZE),
      PURGE_BATCH_SIZE,
      'deleted reminders of past period ends',
    );
  }
}
