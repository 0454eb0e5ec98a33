import { Injectable, Logger } from '@nestjs/common';

/**
 * Whether the database answered last time it was asked, so an outage is logged once when it starts and once when
 * it ends, never per request or per pooled connection. Fed by every statement's outcome and by the pool's
 * connection errors.
 */
@Injectable()
export class DatabaseAvailability {
  private readonly logger = new Logger('Database');
  private downSince: number | undefined;

  get available(): boolean {
    return this.downSince === undefined;
  }

  /** A connection-level failure (see isConnectionFailure). */
  lost(error: unknown): void {
    if (this.downSince !== undefined) return;
    this.downSince = Date.now();
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.error(
      `the database cannot be reached (${reason}): routes that need it answer 503 database_unavailable until it is back`,
    );
  }

  /** A statement succeeded. */
  answered(): void {
    if (this.downSince === undefined) return;
    const seconds = (Date.now() - this.downSince) / 1000;
    this.downSince = undefined;
    this.logger.log(`the database is reachable again, after ${seconds.toFixed(1)} s`);
  }
}
