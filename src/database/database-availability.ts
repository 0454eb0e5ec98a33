import { Injectable, Logger } from '@nestjs/common';

/**
 * Whether the database answers, so an outage is logged once when it starts and once when it ends, never per
 * request or per pooled connection. Fed by every statement's outcome and by the pool's connection errors.
 *
 * Only an outcome of a statement that started after the last change of state counts: when a server stops, some
 * statements under way still succeed after others failed, and when it is back, some that were waiting still fail;
 * counting those would log the outage many times over.
 */
@Injectable()
export class DatabaseAvailability {
  private readonly logger = new Logger('Database');
  private downSince: number | undefined;
  /** Counts the changes of state; a statement notes it when it starts. */
  private current = 0;

  get available(): boolean {
    return this.downSince === undefined;
  }

  /** To note when a statement starts, and pass to `lost` or `answered` with its outcome. */
  get generation(): number {
    return this.current;
  }

  /** A connection-level failure (see isConnectionFailure) of a statement started at `generation`. */
  lost(error: unknown, generation = this.current): void {
    if (this.downSince !== undefined || generation !== this.current) return;
    this.downSince = Date.now();
    this.current++;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.error(
      `the database cannot be reached (${reason}): routes that need it answer 503 database_unavailable until it is back`,
    );
  }

  /** A statement started at `generation` succeeded. */
  answered(generation: number): void {
    if (this.downSince === undefined || generation !== this.current) return;
    const seconds = (Date.now() - this.downSince) / 1000;
    this.downSince = undefined;
    this.current++;
    this.logger.log(`the database is reachable again, after ${seconds.toFixed(1)} s`);
  }
}
