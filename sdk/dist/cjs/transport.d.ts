/** How long one attempt may wait for its whole answer, in milliseconds, unless set otherwise. */
export declare const DEFAULT_TIMEOUT_MS = 30000;
/** How many times a failed request that is safe to repeat is sent again, unless set otherwise. */
export declare const DEFAULT_MAX_RETRIES = 2;
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
/**
 * Wraps a fetch with a per-attempt timeout, typed connection errors and retries. openapi-fetch copies a call's
 * unknown options onto its Request, which is how a call's `timeout` and `maxRetries` arrive here.
 */
export declare function resilientFetch(send: Fetch, defaults: Required<RequestSettings>): Fetch;
export {};
