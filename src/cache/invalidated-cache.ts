import { LRUCache } from 'lru-cache';
import type { CacheTopic } from './cache-topics.js';
import type { InvalidationLog } from './invalidation-log.service.js';

export interface InvalidatedCacheOptions {
  /** Invalidations the triggers write under this topic drop the entry stored under their key. */
  topic: CacheTopic;
  maxEntries: number;
  ttlMs: number;
}

export interface GetOrLoadOptions<Value extends object | true> {
  /** Whether a loaded value may be stored (default: always). */
  cacheable?: (value: Value) => boolean;
}

/**
 * A read-through cache of database answers that every instance drops the moment the answer changes. It is read on
 * the request path of protected routes, which the access guard admits through the invalidation barrier first, so
 * nothing committed before the request arrived is missed (InvalidationLog); it answers only while the log is
 * trusted, and never stores an answer loaded while an invalidation was applied (the load may have read the old
 * row). Bounded in entries (least recently used first out) and in age, so a missed invalidation could not outlive
 * `ttlMs`.
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

  /** The cached value, or the loaded one (stored when `cacheable` says so and nothing changed meanwhile). */
  async getOrLoad(
    key: string,
    load: () => Promise<Value | undefined>,
    { cacheable = () => true }: GetOrLoadOptions<Value> = {},
  ): Promise<Value | undefined> {
    const trusted = this.log.trusted;
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
