/**
 * Subscription lifecycle as pure functions over stored timestamps. Status is derived at read time, so a
 * subscription expires by the clock passing its end, with no job having to flip a flag.
 */
export type SubscriptionStatus = 'none' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'expired';

/** The statuses in which the subscription is in force (`active: true`, its features on, a renewal extends it). */
export function inForce(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'trialing' || status === 'past_due';
}

export interface SubscriptionPeriodState {
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  /** The holder asked to stop; the paid period still runs to its end. */
  cancelAtPeriodEnd: boolean;
  /** When the latest cancel was requested; distinguishes `canceled` from `expired` once the period is over. */
  canceledAt: Date | null;
  /**
   * The end of the trial the current period began with, if it did: the period is `trialing` until then, and a
   * renewal during it adds the paid period after it. Never later than the period end.
   */
  trialEnd: Date | null;
  /**
   * Set when an automatic charge failed: the subscription is `past_due` (still in force) until this instant,
   * while the charge is retried; a renewal or a cancel clears it.
   */
  graceUntil: Date | null;
}

export type CancelOutcome =
  | { kind: 'not_found' }
  | { kind: 'unchanged'; state: SubscriptionPeriodState }
  | { kind: 'canceled'; next: SubscriptionPeriodState; immediate: boolean };

/**
 * `null` state means the address never subscribed. The period end itself is no longer covered. A failed automatic
 * charge makes it `past_due` from the failure until its grace ends: still in force, the charge being retried.
 */
export function subscriptionStatus(state: SubscriptionPeriodState | null, now: Date): SubscriptionStatus {
  if (state === null) {
    return 'none';
  }
  if (state.graceUntil !== null && now.getTime() < coveredUntil(state).getTime()) {
    return 'past_due';
  }
  if (now.getTime() < state.currentPeriodEnd.getTime()) {
    return state.trialEnd !== null && now.getTime() < state.trialEnd.getTime() ? 'trialing' : 'active';
  }
  return state.canceledAt !== null || state.cancelAtPeriodEnd ? 'canceled' : 'expired';
}

/** The first instant the subscription is no longer in force: its period end, or the end of its grace. */
export function coveredUntil(state: Pick<SubscriptionPeriodState, 'currentPeriodEnd' | 'graceUntil'>): Date {
  const { currentPeriodEnd, graceUntil } = state;
  return graceUntil !== null && graceUntil.getTime() > currentPeriodEnd.getTime()
    ? graceUntil
    : currentPeriodEnd;
}

/**
 * An automatic charge of the next period failed at `now`: a subscription in force, not canceled, becomes
 * `past_due` until `graceMs` after its period end (a second failure keeps the first one's grace). Null: nothing to
 * change (over, canceled, or never subscribed).
 */
export function paymentFailed(
  state: SubscriptionPeriodState | null,
  now: Date,
  graceMs: number,
): SubscriptionPeriodState | null {
  if (state === null || !inForce(subscriptionStatus(state, now)) || state.cancelAtPeriodEnd) return null;
  if (state.graceUntil !== null) return state;
  return { ...state, graceUntil: new Date(state.currentPeriodEnd.getTime() + graceMs) };
}

/**
 * A charge of the period after `periodEnd` is waiting for the chain (sent and not confirmed, or the chain's endpoint
 * down) at `now`: a subscription that still ends at `periodEnd`, not canceled, stays in force through the grace,
 * `graceMs` after its period end, as a failed charge does (an existing grace is kept). Unlike `paymentFailed` it
 * also applies in the moments after the period end, up to where the grace would end: the wait may have begun
 * before it. Null: nothing to change.
 */
export function holdForCharge(
  state: SubscriptionPeriodState | null,
  now: Date,
  periodEnd: Date,
  graceMs: number,
): SubscriptionPeriodState | null {
  if (state === null || state.cancelAtPeriodEnd || state.graceUntil !== null) return null;
  if (state.currentPeriodEnd.getTime() !== periodEnd.getTime()) return null;
  const graceUntil = new Date(state.currentPeriodEnd.getTime() + graceMs);
  if (now.getTime() >= graceUntil.getTime()) return null;
  return { ...state, graceUntil };
}

/**
 * A subscription in force is extended from its current end, so renewing early never loses paid time (nor trial
 * time: a renewal during a trial starts the paid period at the trial's end); any other subscription starts a fresh
 * period now, dropping a previous cancel and trial. `paysAfter`: the payment is for the period after that end (an
 * automatic charge that confirmed late); while the subscription still ends there it is extended from it, even
 * once it has run out.
 */
export function renewSubscription(
  state: SubscriptionPeriodState | null,
  now: Date,
  periodMs: number,
  paysAfter?: Date,
): { next: SubscriptionPeriodState; previousPeriodEnd: Date | null } {
  if (!Number.isSafeInteger(periodMs) || periodMs <= 0) {
    throw new RangeError(`periodMs must be a positive integer, got ${periodMs}`);
  }
  const previousPeriodEnd = state === null ? null : new Date(state.currentPeriodEnd);
  const paidPeriodFollows = state !== null && state.currentPeriodEnd.getTime() === paysAfter?.getTime();
  // A `past_due` subscription was in force through its grace: the periods paid follow its period end.
  if (state !== null && (paidPeriodFollows || inForce(subscriptionStatus(state, now)))) {
    return {
      next: {
        currentPeriodStart: new Date(state.currentPeriodStart),
        currentPeriodEnd: new Date(state.currentPeriodEnd.getTime() + periodMs),
        cancelAtPeriodEnd: false,
        canceledAt: null,
        trialEnd: state.trialEnd && new Date(state.trialEnd),
        graceUntil: null,
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
      trialEnd: null,
      graceUntil: null,
    },
    previousPeriodEnd,
  };
}

/**
 * A trial of `trialMs` starting now, for a subscription not in force (the caller checks; null when it is): a fresh
 * period that is all trial, `trialing` until its end.
 */
export function startTrial(
  state: SubscriptionPeriodState | null,
  now: Date,
  trialMs: number,
): { next: SubscriptionPeriodState; previousPeriodEnd: Date | null } | null {
  if (state !== null && inForce(subscriptionStatus(state, now))) return null;
  const { next, previousPeriodEnd } = renewSubscription(state, now, trialMs);
  return { next: { ...next, trialEnd: new Date(next.currentPeriodEnd) }, previousPeriodEnd };
}

/**
 * Cancelling is idempotent: repeating it, or cancelling something already over, changes nothing. The one
 * exception is an immediate cancel of a subscription already set to cancel at period end, which ends it now. A
 * cancel ends a `past_due` grace: past its period end, the subscription is then over.
 */
export function cancelSubscription(
  state: SubscriptionPeriodState | null,
  now: Date,
  immediate: boolean,
): CancelOutcome {
  if (state === null) {
    return { kind: 'not_found' };
  }
  if (!inForce(subscriptionStatus(state, now))) {
    return { kind: 'unchanged', state };
  }
  if (immediate) {
    return {
      kind: 'canceled',
      // Nothing is left to cancel at period end: the period is over, and a trial in it with it.
      next: {
        currentPeriodStart: new Date(state.currentPeriodStart),
        // Past its period end (in a grace), it ended then.
        currentPeriodEnd: new Date(Math.min(now.getTime(), state.currentPeriodEnd.getTime())),
        cancelAtPeriodEnd: false,
        canceledAt: new Date(now),
        trialEnd: state.trialEnd && new Date(Math.min(state.trialEnd.getTime(), now.getTime())),
        graceUntil: null,
      },
      immediate: true,
    };
  }
  if (state.cancelAtPeriodEnd && state.graceUntil === null) {
    return { kind: 'unchanged', state };
  }
  return {
    kind: 'canceled',
    next: {
      currentPeriodStart: new Date(state.currentPeriodStart),
      currentPeriodEnd: new Date(state.currentPeriodEnd),
      cancelAtPeriodEnd: true,
      canceledAt: new Date(now),
      trialEnd: state.trialEnd && new Date(state.trialEnd),
      graceUntil: null,
    },
    immediate: false,
  };
}
