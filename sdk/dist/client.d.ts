import { type Client, type ClientOptions } from 'openapi-fetch';
import { type Credential } from './credentials.js';
import type { paths } from './schema.js';
export type TollgateClient = Client<paths>;
export interface TollgateClientOptions extends Omit<ClientOptions, 'baseUrl'> {
    /** Where the API answers, e.g. `https://tollgate.example.com` (no trailing path). */
    baseUrl: string;
    /**
     * Sent as `Authorization: Bearer …` on every request that does not set its own. A function is asked before
     * each request, so a session can be replaced (signed in again) without rebuilding the client.
     */
    credential?: Credential | (() => Credential | undefined);
}
/**
 * The typed client: every path, parameter, body and answer of the API comes from the generated schema, e.g.
 * `await client.GET('/subscriptions/status', { params: { query: { address } } })` returns `{ data, error }`;
 * wrap the call in `unwrap` to get the data or a thrown TollgateError.
 */
export declare function createTollgateClient({ baseUrl, credential, ...options }: TollgateClientOptions): TollgateClient;
