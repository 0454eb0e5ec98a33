import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
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
export class SubscriptionExpirySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SubscriptionExpirySweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly subscriptions: SubscriptionsRepository,
  ) {}

  onApplicationBootstrap(): void {
    // Right away first: expiries that fell due while no instance was running are caught up at start.
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
        if (!this.stopped) this.schedule(EXPIRY_SWEEP_INTERVAL_MS);
      });
    }, delayMs).unref();
  }

  private async sweep(): Promise<void> {
    try {
      let recorded: number;
      do {
        recorded = await this.subscriptions.recordDueExpiries(SWEEP_BATCH_SIZE);
        if (recorded > 0) this.logger.log({ recorded, msg: 'recorded subscription expiries' });
      } while (recorded === SWEEP_BATCH_SIZE && !this.stopped);
    } catch (error) {
      this.logger.warn(`expiry sweep failed, retrying next round: ${(error as Error).message}`);
    }
  }
}
