import { LRUCache } from 'lru-cache';
import type { CacheTopic } from './cache-topics.js';
import type { InvalidationLog, InvalidationTicket } from './invalidation-log.service.js';

export interface InvalidatedCacheOptions {
  /** Invalidations the triggers write under this topic drop the entry stored under their key. */
  topic: CacheTopic;
  maxEntries: number;
  ttlMs: number;
}

export interface GetOrLoadOptions<Value extends object | true> {
  /** Whether a loaded value may be stored (default: always). */
  cacheable?: (value: Value) => boolean;
  /** The request's ticket (InvalidationLog.requestTicket); without it, a new one. */
  ticket?: InvalidationTicket;
}

/**
 * A read-through cache of database answers that every instance drops the moment the answer changes. It answers
 * only after the invalidation barrier (so nothing committed before the request is missed), and never stores an
 * answer loaded while an invalidation was applied (the load may have read the old row). Bounded in entries (least
 * recently used first out) and in age, so a missed invalidation could not outlive `ttlMs`.
 */
export class InvalidatedCache<Value extends object | true> {
  private readonly cache: LRUCache<string, Value>;
  private generation = 0;

  constructor(
    private readonly log: InvalidationLog,
    private readonly options: InvalidatedCacheOptions,
  ) {
    this.cache = new LRUCache<string, Value>({ max: options.maxEntries, ttl: options.ttlMs });
    log.onInvalidation(options.topic, (key) => this.invalidate(key));
    log.onReset(() => this.clear());
  }

  /**
   * The cached value, or the loaded one (stored when `cacheable` says so and nothing changed meanwhile). Given the
   * request's ticket, a request that consults several caches passes the barrier once.
   */
  async getOrLoad(
    key: string,
    load: () => Promise<Value | undefined>,
    { cacheable = () => true, ticket }: GetOrLoadOptions<Value> = {},
  ): Promise<Value | undefined> {
    const trusted = await this.log.barrier(ticket);
    if (trusted) {
      const hit = this.cache.get(key);
      if (hit !== undefined) return hit;
    }
    const generation = this.generation;
    const value = await load();
    if (trusted && value !== undefined && cacheable(value) && generation === this.generation) {
      this.cache.set(key, value);
    }
    return value;
  }

  private invalidate(key: string): void {
    this.generation++;
    this.cache.delete(key);
  }

  private clear(): void {
    this.generation++;
    this.cache.clear();
  }
}
