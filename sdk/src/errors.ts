import type { operations } from './schema.js';

/** The interface's error object: `{"error": "<message>", "details": {"code": "<stable_code>", ...}}`. */
export interface ErrorBody<Code extends string = string> {
  error: string;
  details: { code: Code; [key: string]: unknown };
}

/** The `details.code` values of one operation's declared error answers (the generated schema's enums). */
type CodesOfResponses<Responses> = {
  [Status in keyof Responses]: Responses[Status] extends {
    content: { 'application/json': { details: { code: infer Code } } };
  }
    ? Code & string
    : never;
}[keyof Responses];

/**
 * Every `details.code` the API declares, e.g. `'insufficient_scope' | 'rate_limited' | …`, or those of one
 * operation by its operationId: `ErrorCode<'renewSubscription'>`.
 */
export type ErrorCode<Operation extends keyof operations = keyof operations> = {
  [Name in Operation]: CodesOfResponses<operations[Name]['responses']>;
}[Operation];

/**
 * Codes the client itself gives: an answer that is not the interface's error object (a proxy's HTML page), no
 * answer at all (`connection_failed`), or none in time (`timeout`).
 */
export type ClientErrorCode = 'unexpected_response' | 'connection_failed' | 'timeout';

/**
 * A failed call. For an answer of the API (`status` > 0), `code` is the stable `details.code` to switch on and
 * `message` the human text; answers that are not the interface's error object get `unexpected_response`. When no
 * answer came, it is a TollgateConnectionError (`status` 0).
 */
export class TollgateError<Code extends string = ErrorCode> extends Error {
  override readonly name: string = 'TollgateError';
  /** The HTTP status; 0 when no answer came (TollgateConnectionError). */
  readonly status: number;
  readonly error: string;
  readonly code: Code | ClientErrorCode;
  readonly details: ErrorBody<Code>['details'] | { code: ClientErrorCode };

  constructor(status: number, body: unknown, options?: { cause?: unknown }) {
    const parsed = isErrorBody(body) ? (body as ErrorBody<Code>) : undefined;
    const error = parsed?.error ?? `HTTP ${status}`;
    super(error, options);
    this.status = status;
    this.error = error;
    this.details = parsed?.details ?? { code: 'unexpected_response' };
    this.code = this.details.code;
  }

  /** The request id the service logged the failure under (`details.requestId`): quote it when reporting. */
  get requestId(): string | undefined {
    const id = (this.details as Record<string, unknown>).requestId;
    return typeof id === 'string' ? id : undefined;
  }
}

/**
 * No answer came: the connection was refused, reset or dropped, or the name did not resolve (`code`
 * `connection_failed`, the network error in `cause`). A request that was safe to repeat has already been retried.
 * For a renew or cancel the outcome is unknown: repeat it with the same Idempotency-Key to learn it.
 */
export class TollgateConnectionError extends TollgateError<never> {
  override readonly name: string = 'TollgateConnectionError';
  constructor(message: string, options: { cause?: unknown; code?: 'connection_failed' | 'timeout' } = {}) {
    super(0, { error: message, details: { code: options.code ?? 'connection_failed' } }, options);
  }
}

/** No answer within the timeout (`code` `timeout`); the service may still have acted, as for a connection error. */
export class TollgateTimeoutError extends TollgateConnectionError {
  override readonly name: string = 'TollgateTimeoutError';
  constructor(timeoutMs: number, url: string) {
    super(`no answer from ${url} within ${timeoutMs} ms`, { code: 'timeout' });
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const { error, details } = body as Record<string, unknown>;
  return (
    typeof error === 'string' &&
    typeof details === 'object' &&
    details !== null &&
    typeof (details as Record<string, unknown>).code === 'string'
  );
}

/**
 * The codes `isTollgateError` accepts for a value: an error typed by its operation (caught from `unwrap`) takes that
 * operation's codes; anything else (`unknown` in a catch, an error `instanceof` typed with `any`) every declared one.
 */
type AcceptedCodes<Value> =
  Value extends TollgateError<infer Code>
    ? (string extends Code ? ErrorCode : Code) | ClientErrorCode
    : ErrorCode | ClientErrorCode;

/**
 * Whether `value` is a TollgateError, optionally with one of the given codes. Only codes that exist compile: those
 * of the error's operation when it is typed, else any code the API or the client declares.
 */
export function isTollgateError<Value, Code extends AcceptedCodes<Value>>(
  value: Value,
  ...codes: Code[]
): value is Value & TollgateError<Code> {
  return value instanceof TollgateError && (codes.length === 0 || (codes as string[]).includes(value.code));
}

type CodeOf<E> = E extends { details: { code: infer C } } ? (C extends string ? C : string) : string;

/**
 * Resolves to the body of a successful openapi-fetch call, or throws a TollgateError typed with the error codes
 * the operation declares: `const status = await unwrap(client.GET('/subscriptions/status'))`.
 */
export async function unwrap<T, E>(
  pending: Promise<{ data?: T; error?: E; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new TollgateError<CodeOf<E>>(response.status, error);
  return data as NonNullable<T>;
}
