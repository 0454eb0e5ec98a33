/*
 * Changing plan, as pure functions over integers (docs/api-guide.md, "Changing plan"; the decision record
 * docs/decisions/2026-11-27-plan-change-proration.md). Prices are compared per second by cross-multiplying in
 * bigint, so no division is made until the one that rounds the converted time down.
 */

/** What decides a change: a plan's id, its price per period (token units) and its period (seconds). */
export interface PlanTerms {
  readonly id: string;
  readonly pricePerPeriod: bigint;
  readonly periodSeconds: number;
}

/** The row's part a change looks at. */
export interface PlanChangeState {
  readonly planId: string;
  readonly pendingPlanId: string | null;
  readonly currentPeriodEnd: Date;
}

export type PlanChangeDecision =
  /** A dearer plan: from `now`, until `periodEnd` (the time left converted). */
  | { kind: 'now'; periodEnd: Date }
  /** Nothing of the time left survives the conversion (a free current plan, or a few milliseconds left). */
  | { kind: 'no_time_left' }
  /** A plan as dear or cheaper per second: at the period's end. */
  | { kind: 'schedule'; at: Date }
  /** The current plan named while a change is scheduled: the scheduled change is dropped. */
  | { kind: 'unschedule'; pendingPlanId: string }
  /** The current plan with nothing scheduled, or the plan already scheduled. */
  | { kind: 'unchanged' };

/** Whether `to` costs more per second than `from`: to.price / to.period > from.price / from.period. */
export function costsMorePerSecond(from: PlanTerms, to: PlanTerms): boolean {
  return to.pricePerPeriod * BigInt(from.periodSeconds) > from.pricePerPeriod * BigInt(to.periodSeconds);
}

/**
 * `leftMs` of `from` at `to`'s price per second, rounded down to whole seconds, in milliseconds:
 * floor(left × from.price × to.period / (to.price × from.period)). Only for a dearer `to`, whose price is then
 * positive; the result is never more than `leftMs`.
 */
export function convertTimeLeft(leftMs: number, from: PlanTerms, to: PlanTerms): number {
  if (!Number.isSafeInteger(leftMs) || leftMs < 0) throw new RangeError(`time left of ${leftMs} ms`);
  if (!costsMorePerSecond(from, to)) throw new RangeError(`${to.id} is not dearer than ${from.id}`);
  const worth = BigInt(leftMs) * from.pricePerPeriod * BigInt(to.periodSeconds);
  const perMsAtNewPrice = to.pricePerPeriod * BigInt(from.periodSeconds);
  return Number(worth / (perMsAtNewPrice * 1000n)) * 1000;
}

/** What `POST /subscriptions/change-plan` does to an active subscription on `from`, asked at `now`, to go to `to`. */
export function decidePlanChange(
  state: PlanChangeState,
  now: Date,
  from: PlanTerms,
  to: PlanTerms,
): PlanChangeDecision {
  if (to.id === from.id) {
    return state.pendingPlanId === null
      ? { kind: 'unchanged' }
      : { kind: 'unschedule', pendingPlanId: state.pendingPlanId };
  }
  if (to.id === state.pendingPlanId) return { kind: 'unchanged' };
  if (!costsMorePerSecond(from, to)) return { kind: 'schedule', at: new Date(state.currentPeriodEnd) };
  const leftMs = Math.max(0, state.currentPeriodEnd.getTime() - now.getTime());
  const converted = convertTimeLeft(leftMs, from, to);
  if (converted === 0) return { kind: 'no_time_left' };
  return { kind: 'now', periodEnd: new Date(now.getTime() + converted) };
}
