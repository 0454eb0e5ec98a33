/**
 * Subscription lifecycle as pure functions over stored timestamps. Status is derived at read time, so a
 * subscription expires by the clock passing its end, with no job having to flip a flag.
 */
export type SubscriptionStatus = 'none' | 'active' | 'canceled' | 'expired';

export interface SubscriptionPeriodState {
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  /** The holder asked to stop; the paid period still runs to its end. */
  cancelAtPeriodEnd: boolean;
  /** When the latest cancel was requested; distinguishes `canceled` from `expired` once the period is over. */
  canceledAt: Date | null;
}

export type CancelOutcome =
  | { kind: 'not_found' }
  | { kind: 'unchanged'; state: SubscriptionPeriodState }
  | { kind: 'canceled'; next: SubscriptionPeriodState; immediate: boolean };

/** `null` state means the address never subscribed. The period end itself is no longer covered. */
export function subscriptionStatus(state: SubscriptionPeriodState | null, now: Date): SubscriptionStatus {
  if (state === null) {
    return 'none';
  }
  if (now.getTime() < state.currentPeriodEnd.getTime()) {
    return 'active';
  }
  return state.canceledAt !== null || state.cancelAtPeriodEnd ? 'canceled' : 'expired';
}

/**
 * An active subscription is extended from its current end, so renewing early never loses paid time; any
 * other subscription starts a fresh period now, dropping a previous cancel.
 */
export function renewSubscription(
  state: SubscriptionPeriodState | null,
  now: Date,
  periodMs: number,
): { next: SubscriptionPeriodState; previousPeriodEnd: Date | null } {
  if (!Number.isSafeInteger(periodMs) || periodMs <= 0) {
    throw new RangeError(`periodMs must be a positive integer, got ${periodMs}`);
  }
  const previousPeriodEnd = state === null ? null : new Date(state.currentPeriodEnd);
  if (state !== null && subscriptionStatus(state, now) === 'active') {
    return {
      next: {
        currentPeriodStart: new Date(state.currentPeriodStart),
        currentPeriodEnd: new Date(state.currentPeriodEnd.getTime() + periodMs),
        cancelAtPeriodEnd: false,
        canceledAt: null,
      },
      previousPeriodEnd,
    };
  }
  return {
    next: {
      currentPeriodStart: new Date(now),
      currentPeriodEnd: new Date(now.getTime() + periodMs),
      cancelAtPeriodEnd: false,
      canceledAt: null,
    },
    previousPeriodEnd,
  };
}

/**
 * Cancelling is idempotent: repeating it, or cancelling something already over, changes nothing. The one
 * exception is an immediate cancel of a subscription already set to cancel at period end, which ends it now.
 */
export function cancelSubscription(
  state: SubscriptionPeriodState | null,
  now: Date,
  immediate: boolean,
): CancelOutcome {
  if (state === null) {
    return { kind: 'not_found' };
  }
  if (subscriptionStatus(state, now) !== 'active') {
    return { kind: 'unchanged', state };
  }
  if (immediate) {
    return {
      kind: 'canceled',
      // Nothing is left to cancel at period end: the period is over.
      next: {
        currentPeriodStart: new Date(state.currentPeriodStart),
        currentPeriodEnd: new Date(now),
        cancelAtPeriodEnd: false,
        canceledAt: new Date(now),
      },
      immediate: true,
    };
  }
  if (state.cancelAtPeriodEnd) {
    return { kind: 'unchanged', state };
  }
  return {
    kind: 'canceled',
    next: {
      currentPeriodStart: new Date(state.currentPeriodStart),
      currentPeriodEnd: new Date(state.currentPeriodEnd),
      cancelAtPeriodEnd: true,
      canceledAt: new Date(now),
    },
    immediate: false,
  };
}
