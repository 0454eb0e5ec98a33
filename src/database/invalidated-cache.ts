import { ExpiringCache } from '../common/cache/expiring-cache.js';
import type { NotificationBus } from './notification-bus.service.js';

export interface InvalidatedCacheOptions {
  /** A notification `<topic>:<key>` invalidates the entry stored under `<key>`. */
  topic: string;
  maxEntries: number;
  ttlMs: number;
}

/**
 * A read-through cache of database answers that every instance invalidates at once through the notification bus.
 * Two rules keep it from ever serving an answer the database has since changed:
 * - it answers only while the bus is connected (a dropped connection may have lost invalidations), and
 * - an answer loaded while an invalidation arrived is not stored (the load may have read the old row).
 */
export class InvalidatedCache<Value> {
  private readonly cache: ExpiringCache<Value>;
  private generation = 0;

  constructor(
    private readonly bus: NotificationBus,
    options: InvalidatedCacheOptions,
  ) {
    this.cache = new ExpiringCache(options.maxEntries, options.ttlMs);
    const prefix = `${options.topic}:`;
    bus.onInvalidation((payload) => {
      if (payload.startsWith(prefix)) this.invalidate(payload.slice(prefix.length));
    });
    bus.onReset(() => this.clear());
  }

  /** The cached value, or the loaded one (stored when `cacheable` says so and nothing changed meanwhile). */
  async getOrLoad(
    key: string,
    load: () => Promise<Value | undefined>,
    cacheable: (value: Value) => boolean = () => true,
  ): Promise<Value | undefined> {
    if (this.bus.healthy) {
      const hit = this.cache.get(key);
      if (hit !== undefined) return hit;
    }
    const generation = this.generation;
    const value = await load();
    if (value !== undefined && cacheable(value) && this.bus.healthy && generation === this.generation) {
      this.cache.set(key, value);
    }
    return value;
  }

  /** Forgets an entry now (the publishing instance does not wait for its own notification). */
  invalidate(key: string): void {
    this.generation++;
    this.cache.delete(key);
  }

  clear(): void {
    this.generation++;
    this.cache.clear();
  }
}
