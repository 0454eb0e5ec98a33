import { CACHE_TOPICS } from './cache-topics.js';
import { InvalidatedCache } from './invalidated-cache.js';
import type { InvalidationListener, InvalidationLog } from './invalidation-log.service.js';

/** The log as a cache sees it: whether it is trusted, and the invalidations and resets it hands on. */
class FakeLog {
  trusted = true;
  readonly listeners: InvalidationListener[] = [];
  readonly resets: (() => void)[] = [];

  onInvalidation(_topic: string, listener: InvalidationListener): void {
    this.listeners.push(listener);
  }

  onReset(listener: () => void): void {
    this.resets.push(listener);
  }

  invalidate(key: string): void {
    for (const listener of this.listeners) listener(key);
  }

  reset(): void {
    for (const reset of this.resets) reset();
  }
}

interface Row {
  version: number;
}

describe('InvalidatedCache', () => {
  let log: FakeLog;
  let cache: InvalidatedCache<Row>;
  let version: number;
  let loads: number;
  const load = (): Promise<Row> => {
    loads++;
    return Promise.resolve({ version });
  };

  beforeEach(() => {
    log = new FakeLog();
    cache = new InvalidatedCache<Row>(log as unknown as InvalidationLog, {
      topic: CACHE_TOPICS.subscription,
      maxEntries: 10,
      ttlMs: 60_000,
    });
    version = 1;
    loads = 0;
  });

  it('answers from the cache once a trusted load stored the row, until it is invalidated', async () => {
    await expect(cache.getOrLoad('a', load)).resolves.toEqual({ version: 1 });
    version = 2;
    await expect(cache.getOrLoad('a', load)).resolves.toEqual({ version: 1 });
    expect(loads).toBe(1);
    log.invalidate('a');
    await expect(cache.getOrLoad('a', load)).resolves.toEqual({ version: 2 });
    expect(loads).toBe(2);
  });

  it('answers from the database, storing nothing, while the log is not trusted', async () => {
    await cache.getOrLoad('a', load);
    log.trusted = false;
    version = 2;
    await expect(cache.getOrLoad('a', load)).resolves.toEqual({ version: 2 });
    await expect(cache.getOrLoad('b', load)).resolves.toEqual({ version: 2 });
    log.trusted = true;
    version = 3;
    await expect(cache.getOrLoad('b', load)).resolves.toEqual({ version: 3 });
    expect(loads).toBe(4);
  });

  it('does not store a row loaded while an invalidation or a reset was applied', async () => {
    for (const applied of [() => log.invalidate('other'), () => log.reset()]) {
      let finish!: (row: Row) => void;
      const pending = cache.getOrLoad('a', () => new Promise<Row>((resolve) => (finish = resolve)));
      applied();
      finish({ version: 0 });
      await expect(pending).resolves.toEqual({ version: 0 });
      await expect(cache.getOrLoad('a', load)).resolves.toEqual({ version: 1 });
      log.invalidate('a');
    }
  });

  it('drops every row on a reset, and stores only what `cacheable` accepts', async () => {
    await cache.getOrLoad('a', load);
    log.reset();
    version = 2;
    await expect(cache.getOrLoad('a', load)).resolves.toEqual({ version: 2 });
    const odd = { cacheable: (row: Row) => row.version % 2 === 1 };
    await cache.getOrLoad('b', load, odd);
    await cache.getOrLoad('b', load, odd);
    expect(loads).toBe(4);
  });
});
