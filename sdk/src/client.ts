import createClient, {
  type Client,
  type ClientOptions,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
  type ParseAs,
} from 'openapi-fetch';
import { authorization, type Credential } from './credentials.js';
import { TollgateError } from './errors.js';
import type { paths } from './schema.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  resilientFetch,
  type RequestSettings,
} from './transport.js';

type Get<Path> = Path extends keyof paths ? paths[Path]['get'] : never;
type OkHeaders<Operation> = Operation extends { responses: { 200: { headers: infer Headers } } }
  ? Headers
  : never;
/** A header map's declared names, without its `[name: string]: unknown` index signature. */
type DeclaredNames<Headers> = keyof { [Name in keyof Headers as string extends Name ? never : Name]: true };

/** The lists that page: their 200 answer declares the `X-Next-Cursor` header. */
export type PagedPath = {
  [Path in keyof paths]: 'x-next-cursor' extends Lowercase<DeclaredNames<OkHeaders<Get<Path>>> & string>
    ? Path
    : never;
}[keyof paths];

/** One item of a paged list, e.g. `PageItem<'/api-keys/list'>` is an ApiKeyDto. */
export type PageItem<Path extends PagedPath> =
  Get<Path> extends { responses: { 200: { content: { 'application/json': Array<infer Item> } } } }
    ? Item
    : never;

/** An HTTP method of openapi-fetch's client, lower case as in the schema: `'get'`, `'post'`, … */
type Method = Parameters<Client<paths>['request']>[0];

/**
 * The options of one call: the operation's own (`params`, `body`, `headers`, `signal`, `parseAs`, …) and the
 * client's `timeout` and `maxRetries`, e.g. `CallOptions<'/subscriptions/status', 'get'>`.
 */
export type CallOptions<Path extends keyof paths, M extends Method> = NonNullable<
  MaybeOptionalInit<paths[Path], M>
> &
  RequestSettings;

/** A call's options with the `parseAs` it was given, which types the answer's `data` (CallResult). */
type CallOptionsAs<Path extends keyof paths, M extends Method, As extends ParseAs> = {
  parseAs?: As;
} & CallOptions<Path, M>;

/** The options argument, left optional when the operation requires neither parameters nor a body. */
type CallInit<Path extends keyof paths, M extends Method, As extends ParseAs> =
  undefined extends MaybeOptionalInit<paths[Path], M>
    ? [options?: CallOptionsAs<Path, M, As>]
    : [options: CallOptionsAs<Path, M, As>];

/** openapi-fetch's answer to a call, of any media type; `As` (the call's `parseAs`) types `data`. */
type CallResult<Path extends keyof paths, M extends Method, As extends ParseAs> = Promise<
  FetchResponse<NonNullable<paths[Path][M]>, { parseAs: As }, `${string}/${string}`>
>;

/**
 * openapi-fetch's methods with RequestSettings in their options. Its own accept any extra key (to pass custom
 * properties through to the Request), so a misspelt `timout` would compile and be ignored; these refuse it.
 */
type TypedMethods = {
  [M in Method as Uppercase<M>]: <
    Path extends ClientPathsWithMethod<Client<paths>, M>,
    As extends ParseAs = 'json',
  >(
    url: Path,
    ...init: CallInit<Path, M, As>
  ) => CallResult<Path, M, As>;
} & {
  request<
    M extends Method,
    Path extends ClientPathsWithMethod<Client<paths>, M>,
    As extends ParseAs = 'json',
  >(
    method: M,
    url: Path,
    ...init: CallInit<Path, M, As>
  ): CallResult<Path, M, As>;
};

/** The options of a paged list's GET (its `params.query` filters; `limit` sets the page size). */
export type PageOptions<Path extends PagedPath> = CallOptions<Path, 'get'>;

/** Page size asked for when the caller sets none: sending one turns the lists that answer whole into pages. */
const PAGE_LIMIT = 100;

export type TollgateClient = Omit<Client<paths>, keyof TypedMethods> &
  TypedMethods & {
    /** The base URL the client calls, without a trailing slash (what `signIn` checks the sign-in message against). */
    readonly baseUrl: string;
    /**
     * Every item of a paged list, page after page (following `X-Next-Cursor`), as an async iterator:
     * `for await (const key of tollgate.paginate('/api-keys/list')) …`. A refused page throws a TollgateError.
     */
    paginate<Path extends PagedPath>(
      path: Path,
      options?: PageOptions<Path>,
    ): AsyncGenerator<PageItem<Path>, void>;
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

/** Operations that pay or change a subscription: each call gets its own Idempotency-Key unless the caller sets one. */
const IDEMPOTENT_POSTS = new Set([
  '/subscriptions/renew',
  '/subscriptions/change-plan',
  '/subscriptions/cancel',
]);

/** A version 4 UUID. getRandomValues also works where randomUUID is missing (a page served over plain http). */
function uuid(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
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
export function createTollgateClient({
  baseUrl,
  credential,
  timeout = DEFAULT_TIMEOUT_MS,
  maxRetries = DEFAULT_MAX_RETRIES,
  fetch: send = (request) => globalThis.fetch(request),
  ...options
}: TollgateClientOptions): TollgateClient {
  const base = baseUrl.replace(/\/+$/, '');
  const client = createClient<paths>({
    ...options,
    baseUrl: base,
    fetch: resilientFetch(send, { timeout, maxRetries }),
  });
  client.use({
    onRequest({ request, schemaPath }) {
      // One key per call, kept across its retries: a renew whose answer was lost is replayed, never paid twice.
      if (
        request.method === 'POST' &&
        IDEMPOTENT_POSTS.has(schemaPath) &&
        !request.headers.has('idempotency-key')
      ) {
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

  async function* paginate<Path extends PagedPath>(
    path: Path,
    pageOptions?: PageOptions<Path>,
  ): AsyncGenerator<PageItem<Path>, void> {
    const init = (pageOptions ?? {}) as { params?: { query?: Record<string, unknown> } };
    const query: Record<string, unknown> = { limit: PAGE_LIMIT, ...init.params?.query };
    let cursor = query.cursor as string | undefined;
    do {
      const page = { ...query, ...(cursor === undefined ? {} : { cursor }) };
      // The path and options were checked against the schema by paginate's own signature.
      const { data, error, response } = await (
        client.GET as (...args: unknown[]) => ReturnType<Client<paths>['GET']>
      )(path, { ...init, params: { ...init.params, query: page } });
      if (!response.ok) throw new TollgateError(response.status, error);
      yield* data as PageItem<Path>[];
      cursor = response.headers.get('x-next-cursor') ?? undefined;
    } while (cursor !== undefined);
  }

  // openapi-fetch's methods already carry `timeout` and `maxRetries` to resilientFetch; only their types narrow.
  return Object.assign(client, { baseUrl: base, paginate }) as TollgateClient;
}
