/**
 * A non-2xx answer from the API. `code` is the stable `details.code` to switch on; `message` is the human text.
 * Answers that are not the interface's error object (a proxy's HTML page, say) get the code `unexpected_response`.
 */
export class TollgateError extends Error {
    name = 'TollgateError';
    status;
    error;
    code;
    details;
    constructor(status, body) {
        const parsed = isErrorBody(body) ? body : undefined;
        const error = parsed?.error ?? `HTTP ${status}`;
        super(error);
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
function isErrorBody(body) {
    if (typeof body !== 'object' || body === null)
        return false;
    const { error, details } = body;
    return (typeof error === 'string' &&
        typeof details === 'object' &&
        details !== null &&
        typeof details.code === 'string');
}
/** Whether `value` is a TollgateError, optionally with one of the given codes. */
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
