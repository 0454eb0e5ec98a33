import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Database } from '../database/database.service.js';
import { sql } from '../database/sql.js';
import { isDatabaseUnavailable } from '../database/database.errors.js';
import { onNextBatchTurn } from './batch-turn.js';
import type { CacheTopic } from './cache-topics.js';

const PURGE_EVERY_MS = 10 * 60_000;

export type InvalidationListener = (key: string) => void;

/**
 * With `CACHE_COHERENCE=acknowledged` (CacheLeases): every read of the log also acknowledges, in the same statement,
 * the snapshot it reads as applied by this instance and renews its lease, if the lease still holds.
 */
export interface ReadAcknowledgement {
  instanceId: string;
  leaseMs: number;
  /** After each read that succeeded: when it was sent (performance.now()), and whether the lease held. */
  acknowledged(sentAt: number, held: boolean): void;
}

/** A PostgreSQL snapshot's xmax and in-progress transaction ids, as text. */
interface SeenTransactions {
  xmax: string;
  xip: string[];
}

/** `pg_current_snapshot()::text` is `xmin:xmax:xip,…` (the list may be empty). */
function seenIn(snapshot: string): SeenTransactions {
  const [, xmax, xip] = snapshot.split(':');
  return { xmax: xmax!, xip: xip ? xip.split(',') : [] };
}

/**
 * Strict cross-instance invalidation for the credential and status caches, through PostgreSQL itself.
 *
 * A change writes an invalidation row in its own transaction (database triggers do, see the migration
 * CacheInvalidationTriggers). The access guard admits every request to a protected route through the barrier: a
 * read of the invalidations of every transaction not yet seen, started after the request arrived. Whatever
 * committed before a request arrived is therefore applied before any cache answers that request, on every
 * instance: a revoked key or a logged-out token is refused on its very next request anywhere. The caches then only
 * ask whether the log is {@link trusted}; no ticket travels with the request.
 *
 * One read serves every request waiting when it starts: requests that arrive in the same turn of the event loop
 * join one read, started once that turn's work is queued. One read is under way at a time; the requests that
 * arrive during it share the next, started when it ends but no sooner than a millisecond after it started:
 * overlapping or back-to-back reads would each serve fewer requests, for more queries and CPU.
 *
 * Transactions are tracked by id, not by row order: each read takes the rows of the transactions that its snapshot
 * sees ended and the previous one did not (those that were still running then, and those that began after), so
 * one that commits late is never skipped, and a long-running transaction does not make every read fetch again
 * the rows written since it began.
 */
@Injectable()
export class InvalidationLog implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(InvalidationLog.name);
  private readonly listeners = new Map<string, Set<InvalidationListener>>();
  private readonly resetListeners = new Set<() => void>();
  /**
   * What the last read's snapshot saw: every transaction below `xmax` but those of `xip` (still running then) had
   * ended, and their invalidations are applied. Undefined before the first read and after a failed one.
   */
  private seen: SeenTransactions | undefined;
  /** Whether a read is under way (its callers wait for it; later callers for the next). */
  private reading = false;
  /** The read the current waiters will share, started on the next turn of the event loop (or when one ends). */
  private pending: { outcome: Promise<boolean>; resolve: (trusted: Promise<boolean>) => void } | undefined;
  private pendingScheduled = false;
  /** The read under way (its outcome), if any. */
  private underWay: Promise<boolean> | undefined;
  private acknowledgement: ReadAcknowledgement | undefined;
  /** When the last read started (performance.now()). */
  private lastReadAt = -Infinity;
  private purgeTimer: NodeJS.Timeout | undefined;
  /** Reads of the log started, and invalidations they applied, since the start (the metrics read them). */
  readonly counts = { reads: 0, applied: 0 };

  constructor(private readonly db: Database) {}

  onInvalidation(topic: CacheTopic, listener: InvalidationListener): void {
    const set = this.listeners.get(topic) ?? new Set();
    set.add(listener);
    this.listeners.set(topic, set);
  }

  /** Called when invalidations may have been missed (a failed read): caches start over. */
  onReset(listener: () => void): void {
    this.resetListeners.add(listener);
  }

  /**
   * Whether the caches may answer: the last read of the log succeeded. Once a request has passed the barrier, every
   * invalidation committed before it arrived is applied while this holds; when a read fails, caches are cleared and
   * stand aside until one succeeds again (and that read started after the request arrived too).
   */
  get trusted(): boolean {
    return this.seen !== undefined;
  }

  /**
   * Resolves true once every invalidation committed before the call has been applied here (by a read that starts
   * after it); false when the database could not be read (the caches then answer from the database until a read
   * succeeds).
   */
  barrier(): Promise<boolean> {
    if (!this.pending) {
      let resolve!: (trusted: Promise<boolean>) => void;
      const outcome = new Promise<boolean>((settle) => (resolve = settle));
      this.pending = { outcome, resolve };
    }
    if (!this.reading) this.schedulePending();
    return this.pending.outcome;
  }

  /**
   * The read under way, if any: with acknowledged reads, a request that skips the barrier waits for it, since the
   * database may already show its acknowledgement while its invalidations are not yet applied here.
   */
  get inFlight(): Promise<boolean> | undefined {
    return this.underWay;
  }

  /** From now on every read also acknowledges what it applies (CacheLeases). */
  acknowledgeReads(acknowledgement: ReadAcknowledgement): void {
    this.acknowledgement = acknowledgement;
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
   * `BATCH_SPACING_MS` after the previous read started.
   */
  private schedulePending(): void {
    if (this.pendingScheduled) return;
    this.pendingScheduled = true;
    onNextBatchTurn(this.lastReadAt, () => this.startPending());
  }

  private startPending(): void {
    this.pendingScheduled = false;
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.lastReadAt = performance.now();
    this.reading = true;
    this.counts.reads++;
    const outcome = this.read().finally(() => {
      this.reading = false;
      this.underWay = undefined;
      // Waiters that arrived during this read start theirs now.
      if (this.pending) this.schedulePending();
    });
    this.underWay = outcome;
    pending.resolve(outcome);
  }

  private async read(): Promise<boolean> {
    const since = this.seen;
    const acknowledgement = this.acknowledgement;
    try {
      // The rows of the transactions that ended since the last read: those it saw running, and those after its
      // snapshot. A first read (or one after a failure) applies none: the caches hold nothing older than it.
      const newRows = sql`LEFT JOIN cache_invalidations i ON NOT ${since === undefined}::boolean
           AND (i.xid >= ${since?.xmax ?? '0'}::bigint OR i.xid = ANY (${since?.xip ?? []}::bigint[]))`;
      const sentAt = performance.now();
      const { rows } = await this.db.runPrepared<{
        snapshot: string;
        held?: boolean;
        topic: string | null;
        key: string | null;
      }>(
        acknowledgement ? 'tollgate_read_acknowledge_invalidations' : 'tollgate_read_invalidations',
        acknowledgement
          ? // The acknowledgement names the statement's own snapshot: the rows it returns are what it acknowledges.
            sql`WITH s AS (SELECT pg_current_snapshot()::text AS snapshot),
              ack AS (
                UPDATE cache_leases SET applied = (SELECT snapshot FROM s),
                  lease_until = now() + ${acknowledgement.leaseMs}::int * interval '1 millisecond'
                WHERE instance_id = ${acknowledgement.instanceId}::uuid AND lease_until > now()
                RETURNING 1)
            SELECT s.snapshot, EXISTS (SELECT 1 FROM ack) AS held, i.topic, i.key FROM s ${newRows}`
          : sql`SELECT s.snapshot, i.topic, i.key FROM (SELECT pg_current_snapshot()::text AS snapshot) s ${newRows}`,
      );
      for (const row of rows) {
        if (row.topic === null || row.key === null) continue;
        this.counts.applied++;
        for (const listener of this.listeners.get(row.topic) ?? []) listener(row.key);
      }
      this.seen = seenIn(rows[0]!.snapshot);
      acknowledgement?.acknowledged(sentAt, rows[0]!.held === true);
      return true;
    } catch (error) {
      // An outage is logged once, by the database module; each read failing during it is no news.
      if (!isDatabaseUnavailable(error)) {
        this.logger.warn(`reading cache invalidations failed: ${(error as Error).message}`);
      }
      this.seen = undefined;
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
