import { ExpiringCache } from './expiring-cache.js';

describe('ExpiringCache', () => {
  it('returns entries until they expire', () => {
    const cache = new ExpiringCache<number>(10, 1000);
    const now = Date.now();
    cache.set('a', 1, now + 500);
    expect(cache.get('a', now)).toBe(1);
    expect(cache.get('a', now + 600)).toBeUndefined();
  });

  it('never keeps an entry longer than its TTL', () => {
    const cache = new ExpiringCache<number>(10, 100);
    const now = Date.now();
    cache.set('a', 1, now + 60_000);
    expect(cache.get('a', now + 200)).toBeUndefined();
  });

  it('evicts the oldest entry when full', () => {
    const cache = new ExpiringCache<number>(2, 1000);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
    expect(cache.size).toBe(2);
  });
});
