import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { isDatabaseUnavailable } from './database.errors.js';
import { RepeatingJob } from '../common/jobs/repeating-job.js';

export interface SweeperOptions {
  /** Whether this process runs background work (`workersEnabled`, WEBHOOK_WORKERS). */
  enabled: boolean;
  intervalMs: number;
  /** What a round does, for the log lines: 'expiry sweep'. */
  name: string;
}

/**
 * A background job that runs in rounds where the background workers run: right away at start (so work that fell
 * due while no instance ran is caught up), then `intervalMs` after each round ends, never overlapping itself, and
 * finishing the round under way when the module stops (while the database pool is still open). A failed round is
 * tried again next round, and logged unless the database is unreachable. Several instances may sweep at once: a
 * subclass claims its rows atomically.
 */
export abstract class Sweeper implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private readonly job: RepeatingJob;

  constructor(private readonly options: SweeperOptions) {
    this.logger = new Logger(new.target.name);
    this.job = new RepeatingJob(() => this.round(), options.intervalMs);
  }

  onApplicationBootstrap(): void {
    if (this.options.enabled) this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /** One round's work. */
  protected abstract sweep(): Promise<void>;

  /** Runs `batch` (which handles at most `size` rows and says how many) again while batches come back full. */
  protected async drain(batch: () => Promise<number>, size: number, done: string): Promise<void> {
    let handled: number;
    do {
      handled = await batch();
      if (handled > 0) this.logger.log({ handled, msg: done });
    } while (handled >= size && !this.job.isStopped);
  }

  private async round(): Promise<void> {
    try {
      await this.sweep();
    } catch (error) {
      // An outage is logged once, when it starts (DatabaseAvailability), not by every sweeper at every round.
      if (isDatabaseUnavailable(error)) return;
      this.logger.warn(`${this.options.name} failed, retrying next round: ${(error as Error).message}`);
    }
  }
}
