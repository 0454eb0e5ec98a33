import { convertTimeLeft, costsMorePerSecond, decidePlanChange, type PlanTerms } from './plan-change.js';

const DAY = 86_400;
const DAY_MS = DAY * 1000;
const plan = (id: string, price: bigint, periodSeconds: number): PlanTerms => ({
  id,
  pricePerPeriod: price,
  periodSeconds,
});
const BASIC = plan('basic', 5n, 30 * DAY);
const PRO = plan('pro', 10n, 30 * DAY);
const NOW = new Date('2026-11-27T12:00:00.000Z');

describe('costsMorePerSecond', () => {
  it('compares price per second by cross-multiplying', () => {
    expect(costsMorePerSecond(BASIC, PRO)).toBe(true);
    expect(costsMorePerSecond(PRO, BASIC)).toBe(false);
    // Equal per second: 10 per 30 days and 20 per 60 days.
    expect(costsMorePerSecond(PRO, plan('pro-60', 20n, 60 * DAY))).toBe(false);
    expect(costsMorePerSecond(PRO, plan('pro-60+', 21n, 60 * DAY))).toBe(true);
    // A cheaper period price can still cost more per second.
    expect(costsMorePerSecond(PRO, plan('weekly', 3n, 7 * DAY))).toBe(true);
    expect(costsMorePerSecond(plan('free', 0n, 30 * DAY), PRO)).toBe(true);
    expect(costsMorePerSecond(PRO, plan('free', 0n, 30 * DAY))).toBe(false);
  });

  it('stays exact with prices far beyond 2^53', () => {
    const huge = 2n ** 255n;
    expect(costsMorePerSecond(plan('a', huge, 2_147_483_647), plan('b', huge + 1n, 2_147_483_647))).toBe(
      true,
    );
    expect(costsMorePerSecond(plan('a', huge + 1n, 2_147_483_647), plan('b', huge, 2_147_483_647))).toBe(
      false,
    );
  });
});

describe('convertTimeLeft', () => {
  it('converts 10 days on a 5-token 30-day plan into 5 days on a 10-token 30-day plan', () => {
    expect(convertTimeLeft(10 * DAY_MS, BASIC, PRO)).toBe(5 * DAY_MS);
  });

  it('rounds down to whole seconds', () => {
    // 7 s at half the price is 3.5 s: 3 s.
    expect(convertTimeLeft(7_000, BASIC, PRO)).toBe(3_000);
    // 1999 ms at half the price is 999.5 ms: nothing.
    expect(convertTimeLeft(1_999, BASIC, PRO)).toBe(0);
    // Different periods: 60 s left of 5 per 60 s, at 12 per 30 s: 60 × 5 × 30 / (12 × 60) = 12.5 s.
    expect(convertTimeLeft(60_000, plan('a', 5n, 60), plan('b', 12n, 30))).toBe(12_000);
  });

  it('gives nothing for the time left on a free plan', () => {
    expect(convertTimeLeft(30 * DAY_MS, plan('free', 0n, 30 * DAY), PRO)).toBe(0);
  });

  it('never gives more than was left, and is exact for huge prices', () => {
    const from = plan('a', 2n ** 200n, 2_147_483_647);
    const to = plan('b', 2n ** 200n + 1n, 2_147_483_647);
    expect(convertTimeLeft(1_000_000_000, from, to)).toBe(999_999_000);
    for (const left of [0, 1, 999, 1000, 123_456_789]) {
      expect(convertTimeLeft(left, BASIC, PRO)).toBeLessThanOrEqual(left);
      expect(convertTimeLeft(left, BASIC, PRO) % 1000).toBe(0);
    }
  });

  it('refuses what would be a programming error', () => {
    expect(() => convertTimeLeft(1000, PRO, BASIC)).toThrow(RangeError);
    expect(() => convertTimeLeft(-1, BASIC, PRO)).toThrow(RangeError);
    expect(() => convertTimeLeft(0.5, BASIC, PRO)).toThrow(RangeError);
  });
});

describe('decidePlanChange', () => {
  const end = new Date(NOW.getTime() + 10 * DAY_MS);
  const state = { planId: 'basic', pendingPlanId: null, currentPeriodEnd: end };

  it('moves to a dearer plan now, with the time left converted', () => {
    expect(decidePlanChange(state, NOW, BASIC, PRO)).toEqual({
      kind: 'now',
      periodEnd: new Date(NOW.getTime() + 5 * DAY_MS),
    });
  });

  it('schedules a cheaper or equally priced plan at the period end', () => {
    const onPro = { ...state, planId: 'pro' };
    expect(decidePlanChange(onPro, NOW, PRO, BASIC)).toEqual({ kind: 'schedule', at: end });
    expect(decidePlanChange(onPro, NOW, PRO, plan('pro-60', 20n, 60 * DAY))).toEqual({
      kind: 'schedule',
      at: end,
    });
  });

  it('drops a scheduled change when the current plan is named, and leaves a repeated one alone', () => {
    const scheduled = { planId: 'pro', pendingPlanId: 'basic', currentPeriodEnd: end };
    expect(decidePlanChange(scheduled, NOW, PRO, PRO)).toEqual({
      kind: 'unschedule',
      pendingPlanId: 'basic',
    });
    expect(decidePlanChange(scheduled, NOW, PRO, BASIC)).toEqual({ kind: 'unchanged' });
    expect(decidePlanChange({ ...scheduled, pendingPlanId: null }, NOW, PRO, PRO)).toEqual({
      kind: 'unchanged',
    });
  });

  it('replaces a scheduled change by an upgrade', () => {
    const scheduled = { planId: 'basic', pendingPlanId: 'free', currentPeriodEnd: end };
    expect(decidePlanChange(scheduled, NOW, BASIC, PRO).kind).toBe('now');
  });

  it('says when nothing of the time left survives', () => {
    expect(decidePlanChange(state, NOW, plan('basic', 0n, 30 * DAY), PRO)).toEqual({ kind: 'no_time_left' });
    const almostOver = { ...state, currentPeriodEnd: new Date(NOW.getTime() + 1_500) };
    expect(decidePlanChange(almostOver, NOW, BASIC, PRO)).toEqual({ kind: 'no_time_left' });
  });
});
