import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { DatabaseSession } from '../database/database-session.js';
import { Database } from '../database/database.service.js';
import { sql } from '../database/sql.js';
import { onNextBatchTurn } from './batch-turn.js';
import { CACHED_TABLES } from './cache-topics.js';
import { InvalidationLog } from './invalidation-log.service.js';

/** Notified by each commit that wrote invalidations (Database.watchInvalidatingCommits); instances `LISTEN`. */
export const CACHE_CHANNEL = 'tollgate_cache';
/**
 * The local lease ends this share of the lease after the acknowledgement was sent; the database's ends a whole lease
 * after it ran. The rest is room for this process's clock and the database's to run at different rates, and for
 * a pause between reading the clock and sending.
 */
const LOCAL_SHARE = 0.8;
/**
 * A writer's polls of the acknowledgements: the first after most of the recent mean wait (at least 1 ms), then half
 * the oldest wait, at most this. Polling sooner than the instances can answer only adds statements.
 */
const MAX_POLL_MS = 50;
/** Lease rows of instances gone this long are deleted by the next instance to join. */
const FORGET_AFTER = '1 hour';

interface Waiter {
  xid: string;
  since: number;
  done: () => void;
}

/**
 * `CACHE_COHERENCE=acknowledged`: coherence that costs per write, not per request.
 *
 * The barrier (InvalidationLog) proves on every batch of requests that nothing committed before them is missing,
 * with a round trip. Here the proof is made once per write instead, by its writer:
 *
 * - **Each instance holds a lease** (a `cache_leases` row). It `LISTEN`s on {@link CACHE_CHANNEL} and reads the log
 *   on each notification and every third of a lease; each read acknowledges, in the same statement, the snapshot it
 *   reads (and so applies) and extends the lease, but only while the lease still holds.
 * - **A writer waits.** A transaction that wrote invalidations notifies as it commits, and its caller gets the
 *   answer only once every instance whose lease holds has acknowledged a snapshot in which the transaction has
 *   ended (or its lease ran out).
 * - **An instance skips the barrier only while its own lease holds**, counted on its own clock from when it sent
 *   the acknowledging read, and shorter ({@link LOCAL_SHARE}) than the database's; a request then still waits for a
 *   read under way (its acknowledgement may be visible before its invalidations are applied here).
 *
 * Why that keeps the guarantee for every write made through the service: take a writer that answered before a
 * request arrived here at `t`, and the local lease that let the request skip the barrier, granted by a read sent at
 * `s` that ran at `d` (so `t` < `s` + 0.8 lease). If the writer saw this instance acknowledge its transaction, the
 * invalidations are applied, or being applied and the request waits for them. Otherwise it saw the lease ended, at
 * some time `c` < `t`. From `d` on the lease in the database runs to at least `d` + lease > `t`, so `c` came before
 * `d`, the read's snapshot (taken at `d`) sees the transaction, and it is applied too. A lapsed lease is never
 * extended; an instance whose acknowledgement finds it ended joins again. What is relaxed: a change made by SQL
 * outside the service (nobody waits on it) is applied on its notification, milliseconds after its commit, not
 * before the next request; and a writer cut off from the database stops waiting after one and a half leases. The
 * two clocks must not drift apart by more than a fifth of a lease while a lease runs.
 *
 * Not available behind a transaction pooler without `DATABASE_SESSION_URL` (`LISTEN` needs a session of its own).
 */
@Injectable()
export class CacheLeases implements OnModuleInit, BeforeApplicationShutdown {
  readonly enabled: boolean;
  private readonly logger = new Logger(CacheLeases.name);
  private readonly leaseMs: number;
  /** performance.now() until which requests may skip the barrier. */
  private localUntil = -Infinity;
  /** Whether this instance's lease row is known to hold (from the join until an acknowledgement finds it ended). */
  private joined = false;
  /** When the last join was answered: a read sent before it may have run before it. */
  private joinedAt = Infinity;
  private refreshing = false;
  private refreshAgain = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private waiters: Waiter[] = [];
  private batch: Promise<unknown> | undefined;
  private lastBatchAt = -Infinity;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Recent waits' mean, in ms (exponentially weighted). */
  private meanWaitMs = 1;
  /** Counted since the start, read by the metrics. */
  readonly counts = { lapses: 0, waits: 0, waitSeconds: 0, waitsCutShort: 0 };

  constructor(
    private readonly db: Database,
    private readonly log: InvalidationLog,
    private readonly session: DatabaseSession,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.enabled = config.cacheCoherence === 'acknowledged';
    this.leaseMs = config.cacheLeaseMs;
  }

  /** Whether this instance's caches may answer a request that arrives now without a read of the log first. */
  get current(): boolean {
    return performance.now() < this.localUntil;
  }

  /**
   * Admits a request while {@link current}, with no round trip: after the read of the log under way, if any (its
   * acknowledgement may be visible before its invalidations are applied here), and together with the requests that
   * arrive with it, released on the next turn and at most once a millisecond, as the barrier releases its batches.
   * Batched, a read costs 0.80–0.84 of the CPU of one answered as it arrives
   * (docs/decisions/2026-11-29-acknowledged-cache-coherence.md).
   */
  admit(): Promise<unknown> {
    if (!this.batch) {
      this.batch = new Promise<void>((resolve) =>
        onNextBatchTurn(this.lastBatchAt, () => {
          this.batch = undefined;
          this.lastBatchAt = performance.now();
          resolve();
        }),
      ).then(() => this.log.inFlight);
    }
    return this.batch;
  }

  onModuleInit(): void {
    if (!this.enabled) return;
    if (!this.session.available) {
      // The settings refuse this combination; a direct construction that gets here keeps the barrier.
      this.logger.warn('CACHE_COHERENCE=acknowledged needs a database session: every request reads the log');
      return;
    }
    this.log.acknowledgeReads({
      instanceId: this.session.instanceId,
      leaseMs: this.leaseMs,
      acknowledged: (sentAt, held) => this.acknowledged(sentAt, held),
    });
    this.db.watchInvalidatingCommits({
      channel: CACHE_CHANNEL,
      tables: CACHED_TABLES,
      committed: (xid) => this.appliedEverywhere(xid),
    });
    // Called on every notification, and once each time the session (re)connects.
    this.session.listen(CACHE_CHANNEL, () => this.refresh());
    this.renewTimer = setInterval(() => this.refresh(), this.leaseMs / 3).unref();
    this.refresh();
  }

  /** Leaves at once, so writers stop waiting for this instance; requests still in flight read the log. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.enabled) return;
    this.stopped = true;
    this.localUntil = -Infinity;
    clearInterval(this.renewTimer);
    await this.db
      .run(sql`DELETE FROM cache_leases WHERE instance_id = ${this.session.instanceId}::uuid`)
      .catch(() => undefined);
  }

  /** One refresh at a time; a call during one runs another after it (a notification may have come meanwhile). */
  private refresh(): void {
    if (this.stopped) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    void this.renew().finally(() => {
      this.refreshing = false;
      if (this.refreshAgain) {
        this.refreshAgain = false;
        this.refresh();
      }
    });
  }

  private async renew(): Promise<void> {
    try {
      if (!this.joined) {
        await this.db.run(
          sql`DELETE FROM cache_leases WHERE lease_until < now() - ${FORGET_AFTER}::interval`,
        );
        // Writers wait for this instance from now on; it has acknowledged nothing yet.
        await this.db.run(
          sql`INSERT INTO cache_leases (instance_id, applied, lease_until)
              VALUES (${this.session.instanceId}::uuid, NULL, now() + ${this.leaseMs}::int * interval '1 millisecond')
              ON CONFLICT (instance_id) DO UPDATE SET applied = NULL, lease_until = EXCLUDED.lease_until`,
        );
        this.joined = true;
        this.joinedAt = performance.now();
      }
      // A read of the log that starts now; it acknowledges what it applies (acknowledged() below).
      await this.log.barrier();
    } catch {
      // The database is out of reach: the local lease ends on its own, and requests meanwhile take the barrier
      // (which fails over to the database too). The next tick tries again.
    }
  }

  /** Every successful read of the log, with whether its acknowledgement found the lease holding. */
  private acknowledged(sentAt: number, held: boolean): void {
    if (this.stopped) return;
    if (held) {
      this.localUntil = Math.max(this.localUntil, sentAt + this.leaseMs * LOCAL_SHARE);
      return;
    }
    if (!this.joined || sentAt < this.joinedAt) return;
    // The lease ran out (this process was paused or cut off): writers may have stopped waiting for it.
    this.counts.lapses++;
    this.logger.warn('the cache lease ran out before it was renewed: joining again');
    this.joined = false;
    this.localUntil = -Infinity;
    this.refreshAgain = true;
  }

  /**
   * Resolves once every instance whose lease holds has acknowledged a snapshot in which transaction `xid` has
   * ended. Waiters share the polls.
   */
  appliedEverywhere(xid: string): Promise<void> {
    return new Promise((done) => {
      this.waiters.push({ xid, since: performance.now(), done });
      this.schedulePoll(Math.min(MAX_POLL_MS, Math.max(1, this.meanWaitMs * 0.7)));
    });
  }

  private schedulePoll(delayMs: number): void {
    if (this.pollTimer !== undefined || this.polling) return;
    this.pollTimer = setTimeout(() => void this.poll(), delayMs);
  }

  private async poll(): Promise<void> {
    this.pollTimer = undefined;
    this.polling = true;
    const asked = this.waiters;
    let settled = new Set<string>();
    try {
      const xids = [...new Set(asked.map((waiter) => waiter.xid))];
      const { rows } = await this.db.run<{ xid: string }>(
        sql`SELECT x::text AS xid FROM unnest(${xids}::bigint[]) AS x
            WHERE NOT EXISTS (
              SELECT 1 FROM cache_leases l
              WHERE l.lease_until > now()
                AND (l.applied IS NULL OR NOT pg_visible_in_snapshot(x::text::xid8, l.applied::pg_snapshot)))`,
      );
      settled = new Set(rows.map((row) => row.xid));
    } catch {
      // Unreachable: the others' leases cannot be seen. Cut short below once every lease would have run out.
    }
    this.polling = false;
    const now = performance.now();
    const waiting: Waiter[] = [];
    for (const waiter of this.waiters) {
      const waited = now - waiter.since;
      const cutShort = waited > this.leaseMs * 1.5;
      if (settled.has(waiter.xid) || cutShort) {
        if (cutShort && !settled.has(waiter.xid)) this.counts.waitsCutShort++;
        this.counts.waits++;
        this.counts.waitSeconds += waited / 1000;
        this.meanWaitMs += (waited - this.meanWaitMs) / 16;
        waiter.done();
      } else {
        waiting.push(waiter);
      }
    }
    this.waiters = waiting;
    if (waiting.length > 0) {
      const oldest = now - waiting[0]!.since;
      this.schedulePoll(Math.min(MAX_POLL_MS, Math.max(1, oldest / 2)));
    }
  }
}
