import createClient from 'openapi-fetch';
import { authorization } from './credentials.js';
import { TollgateError } from './errors.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, resilientFetch, } from './transport.js';
/** Page size asked for when the caller sets none: sending one turns the lists that answer whole into pages. */
const PAGE_LIMIT = 100;
/** Operations that pay or change a subscription: each call gets its own Idempotency-Key unless the caller sets one. */
const IDEMPOTENT_POSTS = new Set([
    '/subscriptions/renew',
    '/subscriptions/change-plan',
    '/subscriptions/cancel',
]);
/** A version 4 UUID. getRandomValues also works where randomUUID is missing (a page served over plain http). */
function uuid() {
    if (typeof globalThis.crypto.randomUUID === 'function')
        return globalThis.crypto.randomUUID();
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
/**
 * The typed client: every path, parameter, body and answer of the API comes from the generated schema, e.g.
 * `await client.GET('/subscriptions/status', { params: { query: { address } } })` returns `{ data, error }`;
 * wrap the call in `unwrap` to get the data or a thrown TollgateError. Each attempt times out (`timeout`, default
 * 30 s) with a TollgateTimeoutError; no answer is a TollgateConnectionError; safe and idempotent requests are
 * retried (`maxRetries`, default 2) after a 429, a 503 or no answer. Both can be set per call too, beside its other
 * options: `client.GET('/health', { timeout: 5_000, maxRetries: 0 })`.
 */
export function createTollgateClient({ baseUrl, credential, timeout = DEFAULT_TIMEOUT_MS, maxRetries = DEFAULT_MAX_RETRIES, fetch: send = (request) => globalThis.fetch(request), ...options }) {
    const base = baseUrl.replace(/\/+$/, '');
    const client = createClient({
        ...options,
        baseUrl: base,
        fetch: resilientFetch(send, { timeout, maxRetries }),
    });
    client.use({
        onRequest({ request, schemaPath }) {
            // One key per call, kept across its retries: a renew whose answer was lost is replayed, never paid twice.
            if (request.method === 'POST' &&
                IDEMPOTENT_POSTS.has(schemaPath) &&
                !request.headers.has('idempotency-key')) {
                request.headers.set('idempotency-key', uuid());
            }
            const current = typeof credential === 'function' ? credential() : credential;
            if (current && !request.headers.has('authorization')) {
                request.headers.set('authorization', authorization(current));
            }
            // The same Request, never a copy: the call's own timeout and maxRetries ride on it to resilientFetch.
            return request;
        },
    });
    async function* paginate(path, pageOptions) {
        const init = (pageOptions ?? {});
        const query = { limit: PAGE_LIMIT, ...init.params?.query };
        let cursor = query.cursor;
        do {
            const page = { ...query, ...(cursor === undefined ? {} : { cursor }) };
            // The path and options were checked against the schema by paginate's own signature.
            const { data, error, response } = await client.GET(path, { ...init, params: { ...init.params, query: page } });
            if (!response.ok)
                throw new TollgateError(response.status, error);
            yield* data;
            cursor = response.headers.get('x-next-cursor') ?? undefined;
        } while (cursor !== undefined);
    }
    // openapi-fetch's methods already carry `timeout` and `maxRetries` to resilientFetch; only their types narrow.
    return Object.assign(client, { baseUrl: base, paginate });
}
