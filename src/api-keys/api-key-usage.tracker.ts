import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ApiKeysRepository, type DailyCounts } from './api-keys.repository.js';

/**
 * How often counted use is written. A crash loses what was counted since the last write: at most this long's
 * requests per instance (docs/api-guide.md).
 */
const USAGE_FLUSH_INTERVAL_MS = 10_000;

/** What an instance has counted and not yet written. */
export interface UnflushedUsage {
  counts: ReadonlyMap<string, DailyCounts>;
  lastUse: ReadonlyMap<string, Date>;
}

/** The UTC day of a time, as stored: `YYYY-MM-DD`. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/**
 * Counts key use off the request path: a request only increments an in-memory counter; every
 * USAGE_FLUSH_INTERVAL_MS (and at shutdown) one statement adds the counts to `api_key_usage_daily` and moves
 * `last_used_at` on. Reads merge what this instance has not written yet, so its own requests show at once; other
 * instances' show within one interval. A failed write keeps its counts for the next one.
 */
@Injectable()
export class ApiKeyUsageTracker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyUsageTracker.name);
  private counts = new Map<string, DailyCounts>();
  private lastUse = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Writes begun so far: a read that saw it change may have counted a batch twice or not at all, and retries. */
  private flushesStarted = 0;

  constructor(private readonly repository: ApiKeysRepository) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), USAGE_FLUSH_INTERVAL_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    // One write may be under way: then what was counted after it began still needs its own.
    await this.flushing;
    await this.flush();
  }

  touch(keyId: string, at = Date.now()): void {
    this.add(keyId, utcDay(at), 1);
    this.lastUse.set(keyId, new Date(at));
  }

  /**
   * Runs `load` (a read of stored usage) and pairs its answer with what this instance had not written at that
   * moment, so that the sum counts every request once: no write may begin or end while `load` runs, else it is run
   * again.
   */
  async withUnflushed<T>(load: () => Promise<T>): Promise<{ stored: T; unflushed: UnflushedUsage }> {
    for (;;) {
      await this.flushing;
      const started = this.flushesStarted;
      const stored = await load();
      if (this.flushesStarted === started && this.flushing === undefined) {
        return { stored, unflushed: { counts: this.counts, lastUse: this.lastUse } };
      }
    }
  }

  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.counts.size === 0 && this.lastUse.size === 0) return Promise.resolve();
    const counts = this.counts;
    const lastUse = this.lastUse;
    this.counts = new Map();
    this.lastUse = new Map();
    this.flushesStarted += 1;
    this.flushing = this.repository
      .recordUsage(counts, lastUse)
      .catch((error: Error) => {
        this.logger.warn(`recording API key use failed, kept for the next write: ${error.message}`);
        this.restore(counts, lastUse);
      })
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  private add(keyId: string, day: string, count: number): void {
    let perDay = this.counts.get(keyId);
    if (!perDay) this.counts.set(keyId, (perDay = new Map()));
    perDay.set(day, (perDay.get(day) ?? 0) + count);
  }

  private restore(counts: Map<string, DailyCounts>, lastUse: Map<string, Date>): void {
    for (const [keyId, perDay] of counts) {
      for (const [day, count] of perDay) this.add(keyId, day, count);
    }
    for (const [keyId, at] of lastUse) {
      const current = this.lastUse.get(keyId);
      if (!current || current < at) this.lastUse.set(keyId, at);
    }
  }
}
