const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait after the 1st, 2nd, … failed attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/** The first attempt and one per retry; after this many failures the delivery is marked failed. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** ±20 %, so receivers that fail together are not all retried in the same instant. */
export const RETRY_JITTER = 0.2;

/**
 * A receiver's `Retry-After` can only lengthen the wait, and only this far: a bogus "come back next year" must
 * not park a delivery beyond the whole retry window.
 */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * How long to wait before the next attempt, given how many attempts have failed so far, or null when the schedule
 * is exhausted. `random` returns values in [0, 1), as `Math.random` does.
 */
export function retryDelayMs(
  failedAttempts: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number | null {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) {
    throw new Error('retryDelayMs needs the number of failed attempts (1 or more)');
  }
  const base = RETRY_DELAYS_MS[failedAttempts - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
  if (retryAfterSeconds === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterSeconds * SECOND, MAX_RETRY_AFTER_MS));
}
