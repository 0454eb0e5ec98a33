import { Injectable, Logger } from '@nestjs/common';
import { connectionFailureReason, type ConnectionFailureReason } from './connection-failure.js';

/** At most one line per this while connections keep being refused for want of a slot. */
const SLOTS_LOG_INTERVAL_MS = 10_000;

/**
 * Whether the database answers, so an outage is logged once when it starts and once when it ends, never per
 * request or per pooled connection. Fed by every statement's outcome and by the pool's connection errors.
 *
 * Only an outcome of a statement that started after the last change of state counts: when a server stops, some
 * statements under way still succeed after others failed, and when it is back, some that were waiting still fail;
 * counting those would log the outage many times over.
 *
 * A connection refused because every slot is taken (`too_many_connections`) is no outage: the database answers on
 * the connections already open, and the cause is a connection budget (docs/operations.md), so it is logged as such,
 * at most once per interval with a count, and does not change the state.
 */
@Injectable()
export class DatabaseAvailability {
  private readonly logger = new Logger('Database');
  private downSince: number | undefined;
  /** Counts the changes of state; a statement notes it when it starts. */
  private current = 0;
  /** Connection-level failures seen since start, by reason: the metric `tollgate_db_connection_failures_total`. */
  readonly failures: Record<ConnectionFailureReason, number> = { unreachable: 0, too_many_connections: 0 };
  private slotsLoggedAt: number | undefined;
  private slotsUnlogged = 0;

  get available(): boolean {
    return this.downSince === undefined;
  }

  /** To note when a statement starts, and pass to `lost` or `answered` with its outcome. */
  get generation(): number {
    return this.current;
  }

  /** A connection-level failure (see connectionFailureReason) of a statement started at `generation`. */
  lost(error: unknown, generation = this.current): void {
    const reason = connectionFailureReason(error) ?? 'unreachable';
    this.failures[reason]++;
    const message = error instanceof Error ? error.message : String(error);
    if (reason === 'too_many_connections') {
      this.slotRefused(message);
      return;
    }
    if (this.downSince !== undefined || generation !== this.current) return;
    this.downSince = Date.now();
    this.current++;
    this.logger.error(
      `the database cannot be reached (${message}): routes that need it answer 503 database_unavailable until it is back`,
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

  private slotRefused(message: string): void {
    this.slotsUnlogged++;
    const now = Date.now();
    if (this.slotsLoggedAt !== undefined && now - this.slotsLoggedAt < SLOTS_LOG_INTERVAL_MS) return;
    this.logger.error(
      `the database has no connection slot left for this instance (${message}; ${this.slotsUnlogged} refused ` +
        'since the last such line): requests that need a new connection answer 503 database_unavailable. The ' +
        'connection budget is exceeded: DATABASE_POOL_SIZE times the processes must stay under max_connections, ' +
        'or under the pooler\'s limits (docs/operations.md, "Connection budget and PgBouncer")',
    );
    this.slotsLoggedAt = now;
    this.slotsUnlogged = 0;
  }
}
