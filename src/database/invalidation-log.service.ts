import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Database, type SqlExecutor } from './database.service.js';

const PURGE_EVERY_MS = 10 * 60_000;

export type InvalidationListener = (key: string) => void;

/**
 * Strict cross-instance invalidation for the credential and status caches, through PostgreSQL itself.
 *
 * A change writes an invalidation row in its own transaction. Before a cache may answer, the instance passes a
 * barrier: one query, shared by every request waiting at that moment and started after they arrived, that reads the
 * invalidations of every transaction not yet seen. Whatever committed before a request arrived is therefore applied
 * before that request is answered, on every instance: a revoked key or a logged-out token is refused on its very
 * next request anywhere. The cost is one tiny query per batch of concurrent requests instead of a lookup each.
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
  private horizon: string | undefined;
  private running: Promise<boolean> | undefined;
  private next: Promise<boolean> | undefined;
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

  /** Records, in the changing transaction, that cached reads of `topic`/`key` must be dropped. */
  async publish(tx: SqlExecutor, topic: string, key: string): Promise<void> {
    await tx.query(
      'INSERT INTO cache_invalidations (xid, topic, key) VALUES (pg_current_xact_id()::text::bigint, $1, $2)',
      [topic, key],
    );
  }

  /**
   * Resolves true once every invalidation committed before the call has been applied here; false when the
   * database could not be read (caches must then not be trusted for this request).
   */
  barrier(): Promise<boolean> {
    if (!this.running) return this.start();
    // A read is under way, but it may have started before our caller's request: wait for the next one.
    this.next ??= this.running.then(
      () => this.start(),
      () => this.start(),
    );
    return this.next;
  }

  async onModuleInit(): Promise<void> {
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_EVERY_MS).unref();
    await this.barrier();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  private start(): Promise<boolean> {
    this.next = undefined;
    const read = this.read().finally(() => {
      if (this.running === read) this.running = undefined;
    });
    this.running = read;
    return read;
  }

  private async read(): Promise<boolean> {
    try {
      const first = this.horizon === undefined;
      const { rows } = await this.db.query<{ horizon: string; topic: string | null; key: string | null }>(
        `SELECT h.horizon, i.topic, i.key
         FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon) h
         LEFT JOIN cache_invalidations i ON NOT $1::boolean AND i.xid >= $2::bigint`,
        [first, this.horizon ?? '0'],
      );
      for (const row of rows) {
        if (row.topic === null || row.key === null) continue;
        for (const listener of this.listeners.get(row.topic) ?? []) listener(row.key);
      }
      this.horizon = rows[0]!.horizon;
      return true;
    } catch (error) {
      this.logger.warn(`reading cache invalidations failed: ${(error as Error).message}`);
      this.horizon = undefined;
      for (const reset of this.resetListeners) reset();
      return false;
    }
  }

  private async purge(): Promise<void> {
    try {
      await this.db.query(`DELETE FROM cache_invalidations WHERE created_at < now() - interval '1 hour'`);
    } catch (error) {
      this.logger.warn(`purging cache invalidations failed: ${(error as Error).message}`);
    }
  }
}
