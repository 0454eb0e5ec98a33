import fc from 'fast-check';
import {
  cancelSubscription,
  holdForCharge,
  inForce,
  paymentFailed,
  renewSubscription,
  startTrial,
  subscriptionStatus,
  type SubscriptionPeriodState,
  type SubscriptionStatus,
} from './subscription-state.js';

const PERIOD = 30 * 24 * 60 * 60 * 1000;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** The test clock: instants are offsets in milliseconds from T0. */
const at = (offset: number): Date => new Date(T0 + offset);

function state(
  start: number,
  end: number,
  cancel: { atPeriodEnd?: boolean; canceledAt?: number; trialEnd?: number } = {},
): SubscriptionPeriodState {
  return {
    currentPeriodStart: at(start),
    currentPeriodEnd: at(end),
    cancelAtPeriodEnd: cancel.atPeriodEnd ?? false,
    canceledAt: cancel.canceledAt === undefined ? null : at(cancel.canceledAt),
    trialEnd: cancel.trialEnd === undefined ? null : at(cancel.trialEnd),
    graceUntil: null,
  };
}

const fresh = state(0, PERIOD);
const markedToCancel = state(0, PERIOD, { atPeriodEnd: true, canceledAt: 1000 });
const canceledNow = state(0, 5000, { canceledAt: 5000 });

function renewOnce(current: SubscriptionPeriodState | null, now: Date): SubscriptionPeriodState {
  return renewSubscription(current, now, PERIOD).next;
}

function cancelOnce(
  current: SubscriptionPeriodState,
  now: Date,
  immediate: boolean,
): SubscriptionPeriodState {
  const outcome = cancelSubscription(current, now, immediate);
  if (outcome.kind !== 'canceled') {
    throw new Error(`expected a cancel, got ${outcome.kind}`);
  }
  return outcome.next;
}

describe('subscriptionStatus', () => {
  it.each<[string, SubscriptionPeriodState | null, number, SubscriptionStatus]>([
    ['never subscribed', null, 0, 'none'],
    ['at the period start', fresh, 0, 'active'],
    ['mid-period', fresh, PERIOD / 2, 'active'],
    ['1 ms before the end', fresh, PERIOD - 1, 'active'],
    ['exactly at the end, no cancel', fresh, PERIOD, 'expired'],
    ['after the end, no cancel', fresh, PERIOD + 1, 'expired'],
    ['marked to cancel, still in the period', markedToCancel, PERIOD - 1, 'active'],
    ['marked to cancel, exactly at the end', markedToCancel, PERIOD, 'canceled'],
    ['marked to cancel, long after the end', markedToCancel, 10 * PERIOD, 'canceled'],
    ['canceled immediately, at the cancel instant', canceledNow, 5000, 'canceled'],
    ['canceled immediately, later', canceledNow, PERIOD, 'canceled'],
  ])('%s', (_name, current, now, expected) => {
    expect(subscriptionStatus(current, at(now))).toBe(expected);
  });
});

describe('renewSubscription', () => {
  it.each<[string, SubscriptionPeriodState | null, number, SubscriptionPeriodState, Date | null]>([
    ['none starts a period now', null, 7, state(7, 7 + PERIOD), null],
    ['active extends the end by one period', fresh, 100, state(0, 2 * PERIOD), at(PERIOD)],
    [
      'active and marked to cancel extends and clears the cancel',
      markedToCancel,
      100,
      state(0, 2 * PERIOD),
      at(PERIOD),
    ],
    ['expired starts a fresh period', fresh, PERIOD + 50, state(PERIOD + 50, 2 * PERIOD + 50), at(PERIOD)],
    ['expired exactly at the end starts fresh', fresh, PERIOD, state(PERIOD, 2 * PERIOD), at(PERIOD)],
    [
      'canceled at period end starts a fresh period',
      markedToCancel,
      PERIOD + 50,
      state(PERIOD + 50, 2 * PERIOD + 50),
      at(PERIOD),
    ],
    ['canceled immediately starts fresh', canceledNow, 6000, state(6000, 6000 + PERIOD), at(5000)],
  ])('%s', (_name, current, now, expectedNext, expectedPreviousEnd) => {
    const { next, previousPeriodEnd } = renewSubscription(current, at(now), PERIOD);
    expect(next).toEqual(expectedNext);
    expect(previousPeriodEnd).toEqual(expectedPreviousEnd);
    expect(subscriptionStatus(next, at(now))).toBe('active');
  });

  it('renewing twice while active extends exactly two periods', () => {
    const first = renewOnce(null, at(0));
    const second = renewOnce(first, at(10));
    const third = renewOnce(second, at(20));
    expect(third).toEqual(state(0, 3 * PERIOD));
    expect(subscriptionStatus(third, at(3 * PERIOD - 1))).toBe('active');
    expect(subscriptionStatus(third, at(3 * PERIOD))).toBe('expired');
  });

  it('renewing after an immediate cancel starts fresh instead of reviving the old period', () => {
    const active = renewOnce(null, at(0));
    const canceled = cancelOnce(active, at(1000), true);
    expect(subscriptionStatus(canceled, at(1000))).toBe('canceled');
    const renewed = renewOnce(canceled, at(2000));
    expect(renewed).toEqual(state(2000, 2000 + PERIOD));
  });

  it('renewing after a cancel at period end clears the cancel', () => {
    const canceled = cancelOnce(renewOnce(null, at(0)), at(1000), false);
    const renewed = renewOnce(canceled, at(2000));
    expect(renewed).toEqual(state(0, 2 * PERIOD));
    expect(subscriptionStatus(renewed, at(2 * PERIOD - 1))).toBe('active');
    expect(subscriptionStatus(renewed, at(2 * PERIOD))).toBe('expired');
  });

  it('does not mutate its input', () => {
    const current = state(0, PERIOD, { atPeriodEnd: true, canceledAt: 1000 });
    renewSubscription(current, at(10), PERIOD);
    expect(current).toEqual(markedToCancel);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects a period of %p ms', (periodMs) => {
    expect(() => renewSubscription(null, at(0), periodMs)).toThrow(RangeError);
  });
});

describe('startTrial', () => {
  const TRIAL = 7 * 24 * 60 * 60 * 1000;
  const trial = state(0, TRIAL, { trialEnd: TRIAL });

  it('starts a period that is all trial, trialing to its last instant', () => {
    expect(startTrial(null, at(0), TRIAL)).toEqual({ next: trial, previousPeriodEnd: null });
    expect(subscriptionStatus(trial, at(TRIAL - 1))).toBe('trialing');
    expect(inForce(subscriptionStatus(trial, at(TRIAL - 1)))).toBe(true);
    expect(subscriptionStatus(trial, at(TRIAL))).toBe('expired');
  });

  it('starts after a lapse, and never over a subscription in force', () => {
    expect(startTrial(fresh, at(PERIOD + 5), TRIAL)).toEqual({
      next: state(PERIOD + 5, PERIOD + 5 + TRIAL, { trialEnd: PERIOD + 5 + TRIAL }),
      previousPeriodEnd: at(PERIOD),
    });
    expect(startTrial(fresh, at(10), TRIAL)).toBeNull();
    expect(startTrial(trial, at(10), TRIAL)).toBeNull();
  });

  it('a renewal during the trial starts the paid period at its end: trialing, then active, no time lost', () => {
    const paid = renewOnce(trial, at(1000));
    expect(paid).toEqual(state(0, TRIAL + PERIOD, { trialEnd: TRIAL }));
    expect(subscriptionStatus(paid, at(TRIAL - 1))).toBe('trialing');
    expect(subscriptionStatus(paid, at(TRIAL))).toBe('active');
    expect(subscriptionStatus(paid, at(TRIAL + PERIOD))).toBe('expired');
  });

  it('a renewal after the trial lapsed starts fresh, without a trial', () => {
    expect(renewOnce(trial, at(TRIAL + 3))).toEqual(state(TRIAL + 3, TRIAL + 3 + PERIOD));
  });

  it('a cancel now ends the trial with the period; a cancel at period end keeps both', () => {
    expect(cancelOnce(trial, at(1000), true)).toEqual(state(0, 1000, { canceledAt: 1000, trialEnd: 1000 }));
    const atEnd = cancelOnce(trial, at(1000), false);
    expect(atEnd).toEqual(state(0, TRIAL, { atPeriodEnd: true, canceledAt: 1000, trialEnd: TRIAL }));
    expect(subscriptionStatus(atEnd, at(TRIAL - 1))).toBe('trialing');
    expect(subscriptionStatus(atEnd, at(TRIAL))).toBe('canceled');
  });
});

describe('cancelSubscription', () => {
  it('reports a missing subscription', () => {
    expect(cancelSubscription(null, at(0), false)).toEqual({ kind: 'not_found' });
    expect(cancelSubscription(null, at(0), true)).toEqual({ kind: 'not_found' });
  });

  it.each<[string, SubscriptionPeriodState, number, boolean, SubscriptionPeriodState, SubscriptionStatus]>([
    [
      'at period end keeps the period and marks the cancel',
      fresh,
      1000,
      false,
      state(0, PERIOD, { atPeriodEnd: true, canceledAt: 1000 }),
      'active',
    ],
    ['immediately ends the period now', fresh, 1000, true, state(0, 1000, { canceledAt: 1000 }), 'canceled'],
    [
      'immediately, when already marked to cancel, ends the period now',
      markedToCancel,
      2000,
      true,
      state(0, 2000, { canceledAt: 2000 }),
      'canceled',
    ],
    [
      'immediately, 1 ms before the end, still ends it',
      fresh,
      PERIOD - 1,
      true,
      state(0, PERIOD - 1, { canceledAt: PERIOD - 1 }),
      'canceled',
    ],
  ])('%s', (_name, current, now, immediate, expectedNext, statusAfter) => {
    expect(cancelSubscription(current, at(now), immediate)).toEqual({
      kind: 'canceled',
      next: expectedNext,
      immediate,
    });
    expect(subscriptionStatus(expectedNext, at(now))).toBe(statusAfter);
  });

  it.each<[string, SubscriptionPeriodState, number, boolean]>([
    ['cancelling again at period end', markedToCancel, 2000, false],
    ['expired, at period end', fresh, PERIOD, false],
    ['expired, immediately', fresh, PERIOD + 1, true],
    ['canceled at period end and over, at period end', markedToCancel, PERIOD, false],
    ['canceled at period end and over, immediately', markedToCancel, PERIOD, true],
    ['canceled immediately, again at period end', canceledNow, 5000, false],
    ['canceled immediately, again immediately', canceledNow, 6000, true],
  ])('%s changes nothing', (_name, current, now, immediate) => {
    const outcome = cancelSubscription(current, at(now), immediate);
    expect(outcome).toEqual({ kind: 'unchanged', state: current });
  });

  it('a cancel at period end takes effect exactly at the end', () => {
    const canceled = cancelOnce(renewOnce(null, at(0)), at(1000), false);
    expect(subscriptionStatus(canceled, at(PERIOD - 1))).toBe('active');
    expect(subscriptionStatus(canceled, at(PERIOD))).toBe('canceled');
  });

  it('does not mutate its input', () => {
    const current = state(0, PERIOD);
    cancelSubscription(current, at(10), false);
    cancelSubscription(current, at(10), true);
    expect(current).toEqual(fresh);
  });
});

describe('subscription properties', () => {
  const period = fc.integer({ min: 1, max: 365 * 24 * 60 * 60 * 1000 });
  const instant = fc.integer({ min: 0, max: 100 * 365 * 24 * 60 * 60 * 1000 });

  it('N renews from none at one instant cover exactly N periods', () => {
    fc.assert(
      fc.property(instant, period, fc.integer({ min: 1, max: 50 }), (now, periodMs, renewals) => {
        let current: SubscriptionPeriodState | null = null;
        for (let i = 0; i < renewals; i++) {
          current = renewSubscription(current, at(now), periodMs).next;
        }
        expect(current?.currentPeriodStart).toEqual(at(now));
        expect(current?.currentPeriodEnd).toEqual(at(now + renewals * periodMs));
      }),
    );
  });

  type Step = { advance: number; op: 'renew' | 'trial' | 'cancel' | 'cancelNow' | 'read' };
  const step: fc.Arbitrary<Step> = fc.record({
    advance: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 * PERIOD })),
    op: fc.constantFrom('renew', 'trial', 'cancel', 'cancelNow', 'read'),
  });

  it('status stays consistent with the stored timestamps through any sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let clock = 0;
        let current: SubscriptionPeriodState | null = null;
        for (const { advance, op } of steps) {
          clock += advance;
          const now = at(clock);
          const before = subscriptionStatus(current, now);
          if (op === 'renew') {
            const { next } = renewSubscription(current, now, PERIOD);
            const expectedEnd =
              inForce(before) && current !== null
                ? current.currentPeriodEnd.getTime() + PERIOD
                : now.getTime() + PERIOD;
            expect(next.currentPeriodEnd.getTime()).toBe(expectedEnd);
            expect(inForce(subscriptionStatus(next, now))).toBe(true);
            current = next;
          } else if (op === 'trial') {
            const started = startTrial(current, now, PERIOD);
            expect(started === null).toBe(inForce(before));
            if (started !== null) {
              expect(subscriptionStatus(started.next, now)).toBe('trialing');
              current = started.next;
            }
          } else if (op === 'cancel' || op === 'cancelNow') {
            const outcome = cancelSubscription(current, now, op === 'cancelNow');
            if (current === null) {
              expect(outcome.kind).toBe('not_found');
            } else if (outcome.kind === 'canceled') {
              expect(inForce(before)).toBe(true);
              current = outcome.next;
              expect(subscriptionStatus(current, now)).toBe(op === 'cancelNow' ? 'canceled' : before);
            } else {
              expect(outcome.kind).toBe('unchanged');
            }
          }
          const status = subscriptionStatus(current, now);
          expect(status === 'none').toBe(current === null);
          if (current !== null) {
            expect(inForce(status)).toBe(now < current.currentPeriodEnd);
            expect(status === 'trialing').toBe(
              now < current.currentPeriodEnd && current.trialEnd !== null && now < current.trialEnd,
            );
            expect(current.currentPeriodEnd >= current.currentPeriodStart).toBe(true);
            if (current.trialEnd !== null) {
              // ck_subscriptions_trial_end
              expect(current.trialEnd >= current.currentPeriodStart).toBe(true);
              expect(current.trialEnd <= current.currentPeriodEnd).toBe(true);
            }
            if (status === 'expired') {
              expect(current.canceledAt).toBeNull();
            }
            if (current.cancelAtPeriodEnd || current.canceledAt !== null) {
              // Once cancelled, the subscription never comes back without a renew.
              expect(subscriptionStatus(current, current.currentPeriodEnd)).toBe('canceled');
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('past_due after a failed automatic charge', () => {
  const GRACE = 72 * 3600 * 1000;

  it('stays in force from the failure until the grace after the period end, then expires', () => {
    const failed = paymentFailed(fresh, at(PERIOD - 1000), GRACE)!;
    expect(failed.graceUntil).toEqual(at(PERIOD + GRACE));
    expect(subscriptionStatus(failed, at(PERIOD - 1000))).toBe('past_due');
    expect(subscriptionStatus(failed, at(PERIOD + GRACE - 1))).toBe('past_due');
    expect(subscriptionStatus(failed, at(PERIOD + GRACE))).toBe('expired');
    // A second failure keeps the first one's grace.
    expect(paymentFailed(failed, at(PERIOD + 1000), GRACE)).toBe(failed);
  });

  it('changes nothing for a canceled or ended subscription', () => {
    expect(paymentFailed(markedToCancel, at(PERIOD - 1000), GRACE)).toBeNull();
    expect(paymentFailed(fresh, at(PERIOD), GRACE)).toBeNull();
  });

  it('a renewal in the grace pays from the period end and ends the dunning', () => {
    const failed = paymentFailed(fresh, at(PERIOD - 1000), GRACE)!;
    const { next } = renewSubscription(failed, at(PERIOD + 5000), PERIOD);
    expect(next).toMatchObject({ currentPeriodEnd: at(2 * PERIOD), graceUntil: null });
    expect(subscriptionStatus(next, at(PERIOD + 5000))).toBe('active');
  });

  it('a cancel in the grace, past the period end, ends it now', () => {
    const failed = paymentFailed(fresh, at(PERIOD - 1000), GRACE)!;
    const outcome = cancelSubscription(failed, at(PERIOD + 5000), false);
    expect(outcome.kind).toBe('canceled');
    const next = (outcome as { next: SubscriptionPeriodState }).next;
    expect(subscriptionStatus(next, at(PERIOD + 5000))).toBe('canceled');
  });
});

describe('a charge waiting for the chain', () => {
  const GRACE = 72 * 3600 * 1000;

  it('holds the subscription in force through the grace, also when placed just after the period end', () => {
    const held = holdForCharge(fresh, at(PERIOD - 1000), at(PERIOD), GRACE)!;
    expect(held.graceUntil).toEqual(at(PERIOD + GRACE));
    expect(subscriptionStatus(held, at(PERIOD + 1000))).toBe('past_due');
    // The wait began before the end and the sweep came by after it: still the same grace.
    expect(holdForCharge(fresh, at(PERIOD + 5000), at(PERIOD), GRACE)).toEqual(held);
    expect(holdForCharge(fresh, at(PERIOD + GRACE), at(PERIOD), GRACE)).toBeNull();
  });

  it('holds nothing for another period end, a cancel, or a grace already running', () => {
    expect(holdForCharge(fresh, at(1000), at(2 * PERIOD), GRACE)).toBeNull();
    expect(holdForCharge(markedToCancel, at(1000), at(PERIOD), GRACE)).toBeNull();
    const failed = paymentFailed(fresh, at(PERIOD - 1000), GRACE)!;
    expect(holdForCharge(failed, at(PERIOD - 500), at(PERIOD), GRACE)).toBeNull();
  });

  it('a payment for the period after an end that ran out extends from that end, not from now', () => {
    const lapsed = at(PERIOD + GRACE + 5000);
    expect(renewSubscription(fresh, lapsed, PERIOD, at(PERIOD)).next).toMatchObject({
      currentPeriodStart: at(0),
      currentPeriodEnd: at(2 * PERIOD),
    });
    // Without it, or for an end the subscription no longer has, a lapsed subscription starts afresh now.
    expect(renewSubscription(fresh, lapsed, PERIOD).next.currentPeriodEnd).toEqual(
      new Date(lapsed.getTime() + PERIOD),
    );
    expect(renewSubscription(fresh, lapsed, PERIOD, at(2 * PERIOD)).next.currentPeriodStart).toEqual(lapsed);
  });
});
