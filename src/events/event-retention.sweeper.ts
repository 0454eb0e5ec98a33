import { Inject, Injectable } from '@nestjs/common';
import { Sweeper } from '../database/sweeper.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { EventsRepository } from './events.repository.js';

/** How often old events are purged: retention is counted in days, so a few minutes late is nothing. */
const EVENT_PURGE_INTERVAL_MS = 10 * 60_000;
/** Events deleted per statement; a purge keeps going while batches come back full. */
const PURGE_BATCH_SIZE = 1000;

/**
 * Background job (only where `workersEnabled`) that deletes the events older than EVENTS_RETENTION_DAYS, so that
 * `GET /events` lists what its documentation promises and the outbox does not grow for ever. Several instances may
 * purge at once: each skips the rows another holds.
 */
@Injectable()
export class EventRetentionSweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: EventsRepository,
  ) {
    super({ enabled: config.workersEnabled, intervalMs: EVENT_PURGE_INTERVAL_MS, name: 'event purge' });
  }

  protected sweep(): Promise<void> {
    return this.drain(
      () => this.repository.purge(this.config.eventsRetentionDays, PURGE_BATCH_SIZE),
      PURGE_BATCH_SIZE,
      'purged events past their retention',
    );
  }
}
