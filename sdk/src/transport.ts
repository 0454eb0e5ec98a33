import { TollgateConnectionError, TollgateTimeoutError } from './errors.js';

/** How long one attempt may wait for its whole answer, in milliseconds, unless set otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** How many times a failed request that is safe to repeat is sent again, unless set otherwise. */
export const DEFAULT_MAX_RETRIES = 2;

/**
 * Per-client (createTollgateClient) or per-call settings: `tollgate.GET('/subscriptions/status', { timeout: 5000,
 * maxRetries: 0 })`.
 */
export interface RequestSettings {
  /** Milliseconds to wait for each attempt's whole answer; 0 waits forever. Default 30 000. */
  timeout?: number;
  /**
   * Retries of a GET/HEAD/OPTIONS, or of a request with an Idempotency-Key, after a 429, a 503 or no answer, with
   * exponential backoff and jitter (a `Retry-After` header is honoured). 0 disables. Default 2.
   */
  maxRetries?: number;
}

type Fetch = (request: Request) => Promise<Response>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const RETRIED_STATUSES = new Set([429, 503]);
/** Answers that cannot carry a body, which the Response constructor refuses one for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** A Retry-After beyond this is not waited out: the error goes back to the caller at once. */
const MAX_RETRY_AFTER_MS = 60_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Sending a request again changes nothing more than sending it once: safe methods, or an Idempotency-Key. */
function repeatable(request: Request): boolean {
  return SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');
}

/** Exponential, with jitter (half to all of the step) so clients that failed together do not retry together. */
function backoff(attempt: number): number {
  const step = Math.min(BACKOFF_BASE_MS * 2 ** attempt, BACKOFF_MAX_MS);
  return step / 2 + Math.random() * (step / 2);
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
function retryAfter(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The network error's own reason (`ECONNREFUSED`, `other side closed`) rather than fetch's `fetch failed`. */
function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Wraps a fetch with a per-attempt timeout, typed connection errors and retries. openapi-fetch copies a call's
 * unknown options onto its Request, which is how a call's `timeout` and `maxRetries` arrive here.
 */
export function resilientFetch(send: Fetch, defaults: Required<RequestSettings>): Fetch {
  return async (request) => {
    const own = request as Request & RequestSettings;
    const timeout = own.timeout ?? defaults.timeout;
    const maxRetries = repeatable(request) ? (own.maxRetries ?? defaults.maxRetries) : 0;
    // Read once: every attempt sends the same bytes (a Request's body can be read only once).
    const body = request.body === null ? undefined : await request.arrayBuffer();
    for (let attempt = 0; ; attempt++) {
      const timer = timeout > 0 ? AbortSignal.timeout(timeout) : undefined;
      const signal = timer ? AbortSignal.any([request.signal, timer]) : request.signal;
      let response: Response;
      try {
        const answer = await send(
          new Request(request.url, {
            method: request.method,
            headers: request.headers,
            body,
            signal,
            redirect: request.redirect,
            credentials: request.credentials,
          }),
        );
        // Read within the attempt: a body cut off or too slow is a connection error or a timeout like any other.
        const bytes = await answer.arrayBuffer();
        response = new Response(NULL_BODY_STATUSES.has(answer.status) ? null : bytes, {
          status: answer.status,
          statusText: answer.statusText,
          headers: answer.headers,
        });
      } catch (error) {
        // The caller's own abort is theirs to handle, never retried.
        if (request.signal.aborted) throw error;
        const failure = timer?.aborted
          ? new TollgateTimeoutError(timeout, request.url)
          : new TollgateConnectionError(`could not reach ${new URL(request.url).origin}: ${reason(error)}`, {
              cause: error,
            });
        if (attempt >= maxRetries) throw failure;
        await sleep(backoff(attempt));
        continue;
      }
      if (RETRIED_STATUSES.has(response.status) && attempt < maxRetries) {
        const wait = retryAfter(response) ?? backoff(attempt);
        if (wait <= MAX_RETRY_AFTER_MS) {
          await sleep(wait);
          continue;
        }
      }
      return response;
    }
  };
}
