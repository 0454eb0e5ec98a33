import { type Client, type ClientOptions, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit, type ParseAs } from 'openapi-fetch';
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
/** An HTTP method of openapi-fetch's client, lower case as in the schema: `'get'`, `'post'`, … */
type Method = Parameters<Client<paths>['request']>[0];
/**
 * The options of one call: the operation's own (`params`, `body`, `headers`, `signal`, `parseAs`, …) and the
 * client's `timeout` and `maxRetries`, e.g. `CallOptions<'/subscriptions/status', 'get'>`.
 */
export type CallOptions<Path extends keyof paths, M extends Method> = NonNullable<MaybeOptionalInit<paths[Path], M>> & RequestSettings;
/** A call's options with the `parseAs` it was given, which types the answer's `data` (CallResult). */
type CallOptionsAs<Path extends keyof paths, M extends Method, As extends ParseAs> = {
    parseAs?: As;
} & CallOptions<Path, M>;
/** The options argument, left optional when the operation requires neither parameters nor a body. */
type CallInit<Path extends keyof paths, M extends Method, As extends ParseAs> = undefined extends MaybeOptionalInit<paths[Path], M> ? [options?: CallOptionsAs<Path, M, As>] : [options: CallOptionsAs<Path, M, As>];
/** openapi-fetch's answer to a call, of any media type; `As` (the call's `parseAs`) types `data`. */
type CallResult<Path extends keyof paths, M extends Method, As extends ParseAs> = Promise<FetchResponse<NonNullable<paths[Path][M]>, {
    parseAs: As;
}, `${string}/${string}`>>;
/**
 * openapi-fetch's methods with RequestSettings in their options. Its own accept any extra key (to pass custom
 * properties through to the Request), so a misspelt `timout` would compile and be ignored; these refuse it.
 */
type TypedMethods = {
    [M in Method as Uppercase<M>]: <Path extends ClientPathsWithMethod<Client<paths>, M>, As extends ParseAs = 'json'>(url: Path, ...init: CallInit<Path, M, As>) => CallResult<Path, M, As>;
} & {
    request<M extends Method, Path extends ClientPathsWithMethod<Client<paths>, M>, As extends ParseAs = 'json'>(method: M, url: Path, ...init: CallInit<Path, M, As>): CallResult<Path, M, As>;
};
/** The options of a paged list's GET (its `params.query` filters; `limit` sets the page size). */
export type PageOptions<Path extends PagedPath> = CallOptions<Path, 'get'>;
export type TollgateClient = Omit<Client<paths>, keyof TypedMethods> & TypedMethods & {
    /** The base URL the client calls, without a trailing slash (what `signIn` checks the sign-in message against). */
    readonly baseUrl: string;
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
 * retried (`maxRetries`, default 2) after a 429, a 503 or no answer. Both can be set per call too, beside its other
 * options: `client.GET('/health', { timeout: 5_000, maxRetries: 0 })`.
 */
export declare function createTollgateClient({ baseUrl, credential, timeout, maxRetries, fetch: send, ...options }: TollgateClientOptions): TollgateClient;
export {};
