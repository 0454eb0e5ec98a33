import { type Client, type ClientOptions, type FetchOptions } from 'openapi-fetch';
import { type Credential } from './credentials.js';
import type { paths } from './schema.js';
import { type RequestSettings } from './transport.js';
type Get<Path> = Path extends keyof paths ? paths[Path]['get'] : never;
type OkHeaders<Operation> = Operation extends {
    responses: {
        200: {
            headers: infer Headers;
        };
    };
} ? Headers : never;
/** A header map's declared names, without its `[name: string]: unknown` index signature. */
type DeclaredNames<Headers> = keyof {
    [Name in keyof Headers as string extends Name ? never : Name]: true;
};
/** The lists that page: their 200 answer declares the `X-Next-Cursor` header. */
export type PagedPath = {
    [Path in keyof paths]: 'x-next-cursor' extends Lowercase<DeclaredNames<OkHeaders<Get<Path>>> & string> ? Path : never;
}[keyof paths];
/** One item of a paged list, e.g. `PageItem<'/api-keys/list'>` is an ApiKeyDto. */
export type PageItem<Path extends PagedPath> = Get<Path> extends {
    responses: {
        200: {
            content: {
                'application/json': Array<infer Item>;
            };
        };
    };
} ? Item : never;
/** The options of a paged list's GET (its `params.query` filters; `limit` sets the page size). */
export type PageOptions<Path extends PagedPath> = FetchOptions<Get<Path>> & RequestSettings;
export type TollgateClient = Client<paths> & {
    /**
     * Every item of a paged list, page after page (following `X-Next-Cursor`), as an async iterator:
     * `for await (const key of tollgate.paginate('/api-keys/list')) …`. A refused page throws a TollgateError.
     */
    paginate<Path extends PagedPath>(path: Path, options?: PageOptions<Path>): AsyncGenerator<PageItem<Path>, void>;
};
export interface TollgateClientOptions extends Omit<ClientOptions, 'baseUrl'>, RequestSettings {
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
 * wrap the call in `unwrap` to get the data or a thrown TollgateError. Each attempt times out (`timeout`, default
 * 30 s) with a TollgateTimeoutError; no answer is a TollgateConnectionError; safe and idempotent requests are
 * retried (`maxRetries`, default 2) after a 429, a 503 or no answer. Both can be set per call too.
 */
export declare function createTollgateClient({ baseUrl, credential, timeout, maxRetries, fetch: send, ...options }: TollgateClientOptions): TollgateClient;
export {};
