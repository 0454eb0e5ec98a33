import { connectionFailureReason } from './connection-failure.js';

/** First wait between attempts; each next one doubles, up to MAX_DELAY_MS. */
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 8_000;

export interface ConnectRetryOptions {
  /** How long to keep trying, from the first attempt; 0: one attempt. */
  readonly withinMs: number;
  /** Told before each wait: why the attempt failed and when the next one starts. */
  readonly onRetry: (retry: { reason: string; message: string; delayMs: number; leftMs: number }) => void;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/**
 * Runs `attempt` until it succeeds, retrying with exponential backoff (and jitter, so instances started together
 * do not retry together) while it fails at the connection level: the database not up yet, or no connection slot
 * left for now. Any other error, or one after `withinMs`, is thrown as it is.
 */
export async function retryConnecting<T>(
  attempt: () => Promise<T>,
  { withinMs, onRetry, sleep = defaultSleep, now = Date.now }: ConnectRetryOptions,
): Promise<T> {
  const deadline = now() + withinMs;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    try {
      return await attempt();
    } catch (error) {
      const reason = connectionFailureReason(error);
      const leftMs = deadline - now();
      if (reason === undefined || leftMs <= 0) throw error;
      const delayMs = Math.min(Math.round(delay * (0.5 + Math.random() / 2)), leftMs);
      onRetry({ reason, message: (error as Error).message, delayMs, leftMs });
      await sleep(delayMs);
    }
  }
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The line a start logs before it retries the database. */
export function startRetryLine({
  reason,
  message,
  delayMs,
  leftMs,
}: {
  reason: string;
  message: string;
  delayMs: number;
  leftMs: number;
}): string {
  const what =
    reason === 'too_many_connections'
      ? 'the database has no connection slot left for this instance (too_many_connections: see the connection budget in docs/operations.md)'
      : 'the database cannot be reached yet';
  return `${what} (${message}): retrying in ${(delayMs / 1000).toFixed(1)} s, giving up in ${Math.ceil(leftMs / 1000)} s`;
}
