import createClient from 'openapi-fetch';
import { authorization } from './credentials.js';
/**
 * The typed client: every path, parameter, body and answer of the API comes from the generated schema, e.g.
 * `await client.GET('/subscriptions/status', { params: { query: { address } } })` returns `{ data, error }`;
 * wrap the call in `unwrap` to get the data or a thrown TollgateError.
 */
export function createTollgateClient({ baseUrl, credential, ...options }) {
    const client = createClient({ ...options, baseUrl: baseUrl.replace(/\/+$/, '') });
    if (credential !== undefined) {
        client.use({
            onRequest({ request }) {
                const current = typeof credential === 'function' ? credential() : credential;
                if (current && !request.headers.has('authorization')) {
                    request.headers.set('authorization', authorization(current));
                }
                return request;
            },
        });
    }
    return client;
}
