/**
 * A failed call. For an answer of the API (`status` > 0), `code` is the stable `details.code` to switch on and
 * `message` the human text; answers that are not the interface's error object get `unexpected_response`. When no
 * answer came, it is a TollgateConnectionError (`status` 0).
 */
export class TollgateError extends Error {
    name = 'TollgateError';
    /** The HTTP status; 0 when no answer came (TollgateConnectionError). */
    status;
    error;
    code;
    details;
    constructor(status, body, options) {
        const parsed = isErrorBody(body) ? body : undefined;
        const error = parsed?.error ?? `HTTP ${status}`;
        super(error, options);
        this.status = status;
        this.error = error;
        this.details = parsed?.details ?? { code: 'unexpected_response' };
        this.code = this.details.code;
    }
    /** The request id the service logged the failure under (`details.requestId`): quote it when reporting. */
    get requestId() {
        const id = this.details.requestId;
        return typeof id === 'string' ? id : undefined;
    }
}
/**
 * No answer came: the connection was refused, reset or dropped, or the name did not resolve (`code`
 * `connection_failed`, the network error in `cause`). A request that was safe to repeat has already been retried.
 * For a renew or cancel the outcome is unknown: repeat it with the same Idempotency-Key to learn it.
 */
export class TollgateConnectionError extends TollgateError {
    name = 'TollgateConnectionError';
    constructor(message, options = {}) {
        super(0, { error: message, details: { code: options.code ?? 'connection_failed' } }, options);
    }
}
/** No answer within the timeout (`code` `timeout`); the service may still have acted, as for a connection error. */
export class TollgateTimeoutError extends TollgateConnectionError {
    name = 'TollgateTimeoutError';
    constructor(timeoutMs, url) {
        super(`no answer from ${url} within ${timeoutMs} ms`, { code: 'timeout' });
    }
}
function isErrorBody(body) {
    if (typeof body !== 'object' || body === null)
        return false;
    const { error, details } = body;
    return (typeof error === 'string' &&
        typeof details === 'object' &&
        details !== null &&
        typeof details.code === 'string');
}
/**
 * Whether `value` is a TollgateError, optionally with one of the given codes. Only codes that exist compile: those
 * of the error's operation when it is typed, else any code the API or the client declares.
 */
export function isTollgateError(value, ...codes) {
    return value instanceof TollgateError && (codes.length === 0 || codes.includes(value.code));
}
/**
 * Resolves to the body of a successful openapi-fetch call, or throws a TollgateError typed with the error codes
 * the operation declares: `const status = await unwrap(client.GET('/subscriptions/status'))`.
 */
export async function unwrap(pending) {
    const { data, error, response } = await pending;
    if (!response.ok)
        throw new TollgateError(response.status, error);
    return data;
}
