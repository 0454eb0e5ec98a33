import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { Database } from '../../database/database.service.js';
import { EventOutbox } from '../../events/event-outbox.service.js';
import type { SubscriptionExpiringDataDto } from '../dto/subscription-expiring-event.dto.js';
import { toSubscriptionDto } from '../subscription-view.js';
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
export class SubscriptionReminderSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SubscriptionReminderSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly repository: SubscriptionRemindersRepository,
  ) {}

  onApplicationBootstrap(): void {
    // Right away first: reminders that fell due while no instance was running go out at start.
    if (this.config.workersEnabled) this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // Let a sweep in flight finish while the database pool is still open.
    await this.running;
  }

  private schedule(delayMs: number): void {
    // A timeout re-armed after each sweep, not an interval: a slow sweep never overlaps the next.
    this.timer = setTimeout(() => {
      this.running = this.sweep().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(REMINDER_SWEEP_INTERVAL_MS);
      });
    }, delayMs).unref();
  }

  private async sweep(): Promise<void> {
    try {
      let recorded: number;
      do {
        recorded = await this.recordDue();
        if (recorded > 0) this.logger.log({ recorded, msg: 'recorded subscription reminders' });
      } while (recorded === SWEEP_BATCH_SIZE && !this.stopped);
      await this.repository.deleteStale(SWEEP_BATCH_SIZE);
    } catch (error) {
      this.logger.warn(`reminder sweep failed, retrying next round: ${(error as Error).message}`);
    }
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
        const data: SubscriptionExpiringDataDto = {
          ...toSubscriptionDto(subscription.address, subscription, now),
          endsInSeconds: Math.floor((subscription.currentPeriodEnd.getTime() - now.getTime()) / 1000),
        };
        await this.outbox.record(tx, {
          type: 'subscription.expiring',
          address: subscription.address,
          data: { ...data },
          occurredAt: now,
        });
      }
      return claimed.length;
    });
  }
}
