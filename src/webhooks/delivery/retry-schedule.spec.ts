import fc from 'fast-check';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS, retryDelayMs } from './retry-schedule.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const middle = (): number => 0.5;

describe('retryDelayMs', () => {
  it('follows the contract: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const delays = Array.from({ length: 8 }, (_, i) => retryDelayMs(i + 1, null, middle));
    expect(delays).toEqual([
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
      null,
    ]);
    expect(retryDelayMs(20, null, middle)).toBeNull();
  });

  it('jitters by at most 20 % either way', () => {
    expect(retryDelayMs(1, null, () => 0)).toBe(4 * SECOND);
    expect(retryDelayMs(1, null, () => 0.999_999)).toBe(6 * SECOND);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: RETRY_DELAYS_MS.length }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (failed, r) => {
          const base = RETRY_DELAYS_MS[failed - 1]!;
          const delay = retryDelayMs(failed, null, () => r)!;
          return delay >= base * 0.8 - 1 && delay <= base * 1.2 + 1;
        },
      ),
    );
  });

  it('treats Retry-After as a lower bound', () => {
    expect(retryDelayMs(1, 30, middle)).toBe(30 * SECOND);
    expect(retryDelayMs(1, 2, middle)).toBe(5 * SECOND);
    expect(retryDelayMs(2, 0, middle)).toBe(5 * MINUTE);
  });

  it('caps Retry-After at 24 hours', () => {
    expect(retryDelayMs(1, 365 * 24 * 3600, middle)).toBe(24 * HOUR);
    expect(retryDelayMs(1, 23 * 3600, middle)).toBe(23 * HOUR);
  });

  it('does not let Retry-After revive an exhausted schedule', () => {
    expect(retryDelayMs(MAX_DELIVERY_ATTEMPTS, 60, middle)).toBeNull();
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses %p failed attempts', (failed) => {
    expect(() => retryDelayMs(failed, null)).toThrow('failed attempts');
  });
});
