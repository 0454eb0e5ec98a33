import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { EventsRepository } from './events.repository.js';

/** How often old events are purged: retention is counted in days, so a few minutes late is nothing. */
export const EVENT_PURGE_INTERVAL_MS = 10 * 60_000;
/** Events deleted per statement; a purge keeps going while batches come back full. */
const PURGE_BATCH_SIZE = 1000;

/**
 * Background job (only where `workersEnabled`) that deletes the events older than EVENTS_RETENTION_DAYS, so that
 * `GET /events` lists what its documentation promises and the outbox does not grow for ever. Several instances may
 * purge at once: each skips the rows another holds.
 */
@Injectable()
export class EventRetentionSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRetentionSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: EventsRepository,
  ) {}

  onApplicationBootstrap(): void {
    // Right away first: an instance started after a long stop catches up at once.
    if (this.config.workersEnabled) this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // Let a purge in flight finish while the database pool is still open.
    await this.running;
  }

  private schedule(delayMs: number): void {
    // A timeout re-armed after each purge, not an interval: a slow purge never overlaps the next.
    this.timer = setTimeout(() => {
      this.running = this.purge().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(EVENT_PURGE_INTERVAL_MS);
      });
    }, delayMs).unref();
  }

  private async purge(): Promise<void> {
    try {
      let deleted: number;
      do {
        deleted = await this.repository.purge(this.config.eventsRetentionDays, PURGE_BATCH_SIZE);
        if (deleted > 0) this.logger.log({ deleted, msg: 'purged events past their retention' });
      } while (deleted === PURGE_BATCH_SIZE && !this.stopped);
    } catch (error) {
      this.logger.warn(`event purge failed, retrying next round: ${(error as Error).message}`);
    }
  }
}
