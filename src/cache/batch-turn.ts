/**
 * Batches start at most this often, for both ways a protected request is admitted (InvalidationLog's barrier and
 * CacheLeases' admission). Back to back, under load each read of the log (a round trip, its system calls and its
 * parsing) served one or two requests and took a large share of a cached read's CPU; spaced, one read serves every
 * request of the interval (docs/decisions/2026-11-24-invalidation-reads-spaced.md). A request waits at most this
 * much longer, and only under load: when the last batch started longer ago, the next starts on the next turn.
 */
export const BATCH_SPACING_MS = 1;

/** Calls `release` on the next turn of the event loop, or later, so as to start {@link BATCH_SPACING_MS} after `lastAt`. */
export function onNextBatchTurn(lastAt: number, release: () => void): void {
  const wait = lastAt + BATCH_SPACING_MS - performance.now();
  if (wait > 0) setTimeout(release, wait);
  else setImmediate(release);
}
