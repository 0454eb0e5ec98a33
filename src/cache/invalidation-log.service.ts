import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Database } from '../database/database.service.js';
import { sql } from '../database/sql.js';
import { isDatabaseUnavailable } from '../database/database.errors.js';

const PURGE_EVERY_MS = 10 * 60_000;
/**
 * Reads start at most this often. Back to back, under load each read (a round trip, its system calls and its
 * parsing) served one or two requests and took about a sixth of the service's CPU on a cached read; spaced, one
 * read serves every request of the interval. A request waits at most this much longer, and only under load: when
 * the last read started longer ago, the next starts on the next turn as before.
 */
const MIN_READ_SPACING_MS = 1;

export type InvalidationListener = (key: string) => void;

/**
 * A point in this process's order of events, taken once a request has arrived: every invalidation committed before
 * it must be applied before a cache answers that request. Later reads for the same request reuse it.
 */
export type InvalidationTicket = number;

/**
 * A request as the cache layer sees it: the ticket it was given when it arrived (the access guard gives every
 * request one). Passed down explicitly, as an optional argument: a read without it takes a new ticket, which is
 * always correct (later than the request's arrival), only it may wait for one more read.
 */
export interface TicketCarrier {
  cacheTicket?: InvalidationTicket;
}

const TRUSTED: Promise<boolean> = Promise.resolve(true);

interface Read {
  /** Taken just before the query is sent, so PostgreSQL's snapshot is later than every smaller ticket. */
  startedAt: InvalidationTicket;
  outcome: Promise<boolean>;
}

/**
 * Strict cross-instance invalidation for the credential and status caches, through PostgreSQL itself.
 *
 * A change writes an invalidation row in its own transaction (database triggers do, see the migration
 * CacheInvalidationTriggers). Before a cache may answer, the request passes a
 * barrier: a read of the invalidations of every transaction not yet seen, started after the request's ticket was
 * taken. Whatever committed before a request arrived is therefore applied before that request is answered, on
 * every instance: a revoked key or a logged-out token is refused on its very next request anywhere.
 *
 * One read serves every request waiting when it starts: requests that arrive in the same turn of the event loop
 * join one read, started once that turn's work is queued, and a request that consults several caches passes the
 * barrier once (its ticket is already covered). One read is under way at a time; the requests that arrive during it
 * share the next, started when it ends but no sooner than a millisecond after it started: overlapping or back-to-back
 * reads would each serve fewer requests, for more queries and CPU (docs/performance.md).
 *
 * Transactions are tracked by id, not by row order: a row is read again until no transaction older than it can
 * still be running (the snapshot's xmin passed it), so one that commits late is never skipped. Applying an
 * invalidation twice is harmless.
 */
@Injectable()
export class InvalidationLog implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(InvalidationLog.name);
  private readonly listeners = new Map<string, Set<InvalidationListener>>();
  private readonly resetListeners = new Set<() => void>();
  /** Transactions with ids below this had all committed or aborted when last read. */
  private horizon: bigint | undefined;
  private clock: InvalidationTicket = 0;
  /** Every ticket below this is covered: a read started after it succeeded and its invalidations are applied. */
  private coveredBelow: InvalidationTicket = 0;
  /** The read under way, if any. */
  private current: Read | undefined;
  /** The read the current waiters will share, started on the next turn of the event loop (or when one ends). */
  private pending: { outcome: Promise<boolean>; resolve: (trusted: Promise<boolean>) => void } | undefined;
  private pendingScheduled = false;
  /** When the last read started (performance.now()). */
  private lastReadAt = -Infinity;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Database) {}

  onInvalidation(topic: string, listener: InvalidationListener): void {
    const set = this.listeners.get(topic) ?? new Set();
    set.add(listener);
    this.listeners.set(topic, set);
  }

  /** Called when invalidations may have been missed (a failed read): caches start over. */
  onReset(listener: () => void): void {
    this.resetListeners.add(listener);
  }

  /** A new ticket (see {@link InvalidationTicket}). */
  ticket(): InvalidationTicket {
    return ++this.clock;
  }

  /**
   * The request's ticket, taken on first use (the global guard asks first, before anything reads a cache). Every
   * cache read for the same request that is handed it, in the guard's strategies or in the handler's services,
   * passes the barrier once. Carried on the request rather than in an AsyncLocalStorage: on Node 20 that turns on
   * promise hooks for every promise of the process, about a tenth of the CPU of a cached read.
   */
  requestTicket(request: TicketCarrier): InvalidationTicket {
    return (request.cacheTicket ??= this.ticket());
  }

  /**
   * Resolves true once every invalidation committed before `ticket` was taken has been applied here; false when
   * the database could not be read (caches must then not be trusted for this request).
   */
  barrier(ticket: InvalidationTicket = this.ticket()): Promise<boolean> {
    if (ticket < this.coveredBelow) return TRUSTED;
    if (this.current && this.current.startedAt > ticket) return this.current.outcome;
    if (!this.pending) {
      let resolve!: (trusted: Promise<boolean>) => void;
      const outcome = new Promise<boolean>((settle) => (resolve = settle));
      this.pending = { outcome, resolve };
    }
    if (!this.current) this.schedulePending();
    return this.pending.outcome;
  }

  async onModuleInit(): Promise<void> {
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_EVERY_MS).unref();
    await this.barrier();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  /**
   * Starts the pending read on the next turn, once this turn's requests have all joined it, and no sooner than
   * {@link MIN_READ_SPACING_MS} after the previous read started.
   */
  private schedulePending(): void {
    if (this.pendingScheduled) return;
    this.pendingScheduled = true;
    const wait = this.lastReadAt + MIN_READ_SPACING_MS - performance.now();
    if (wait > 0) setTimeout(() => this.startPending(), wait);
    else setImmediate(() => this.startPending());
  }

  private startPending(): void {
    this.pendingScheduled = false;
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.lastReadAt = performance.now();
    const read: Read = { startedAt: ++this.clock, outcome: pending.outcome };
    this.current = read;
    pending.resolve(
      this.read(read.startedAt).finally(() => {
        this.current = undefined;
        // Waiters that arrived during this read start theirs now.
        if (this.pending) this.schedulePending();
      }),
    );
  }

  private async read(startedAt: InvalidationTicket): Promise<boolean> {
    const from = this.horizon;
    try {
      const { rows } = await this.db.runPrepared<{
        horizon: string;
        topic: string | null;
        key: string | null;
      }>(
        'tollgate_read_invalidations',
        sql`SELECT h.horizon, i.topic, i.key
         FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon) h
         LEFT JOIN cache_invalidations i ON NOT ${from === undefined}::boolean AND i.xid >= ${String(from ?? 0n)}::bigint`,
      );
      for (const row of rows) {
        if (row.topic === null || row.key === null) continue;
        for (const listener of this.listeners.get(row.topic) ?? []) listener(row.key);
      }
      const horizon = BigInt(rows[0]!.horizon);
      if (this.horizon === undefined || horizon > this.horizon) this.horizon = horizon;
      if (startedAt > this.coveredBelow) this.coveredBelow = startedAt;
      return true;
    } catch (error) {
      // An outage is logged once, by the database module; each read failing during it is no news.
      if (!isDatabaseUnavailable(error)) {
        this.logger.warn(`reading cache invalidations failed: ${(error as Error).message}`);
      }
      this.horizon = undefined;
      for (const reset of this.resetListeners) reset();
      return false;
    }
  }

  private async purge(): Promise<void> {
    try {
      await this.db.run(sql`DELETE FROM cache_invalidations WHERE created_at < now() - interval '1 hour'`);
    } catch (error) {
      this.logger.warn(`purging cache invalidations failed: ${(error as Error).message}`);
    }
  }
}
