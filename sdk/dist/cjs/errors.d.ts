import type { operations } from './schema.js';
/** The interface's error object: `{"error": "<message>", "details": {"code": "<stable_code>", ...}}`. */
export interface ErrorBody<Code extends string = string> {
    error: string;
    details: {
        code: Code;
        [key: string]: unknown;
    };
}
/** The `details.code` values of one operation's declared error answers (the generated schema's enums). */
type CodesOfResponses<Responses> = {
    [Status in keyof Responses]: Responses[Status] extends {
        content: {
            'application/json': {
                details: {
                    code: infer Code;
                };
            };
        };
    } ? Code & string : never;
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
export declare class TollgateError<Code extends string = ErrorCode> extends Error {
    readonly name: string;
    /** The HTTP status; 0 when no answer came (TollgateConnectionError). */
    readonly status: number;
    readonly error: string;
    readonly code: Code | ClientErrorCode;
    readonly details: ErrorBody<Code>['details'] | {
        code: ClientErrorCode;
    };
    constructor(status: number, body: unknown, options?: {
        cause?: unknown;
    });
    /** The request id the service logged the failure under (`details.requestId`): quote it when reporting. */
    get requestId(): string | undefined;
}
/**
 * No answer came: the connection was refused, reset or dropped, or the name did not resolve (`code`
 * `connection_failed`, the network error in `cause`). A request that was safe to repeat has already been retried.
 * For a renew or cancel the outcome is unknown: repeat it with the same Idempotency-Key to learn it.
 */
export declare class TollgateConnectionError extends TollgateError<never> {
    readonly name: string;
    constructor(message: string, options?: {
        cause?: unknown;
        code?: 'connection_failed' | 'timeout';
    });
}
/** No answer within the timeout (`code` `timeout`); the service may still have acted, as for a connection error. */
export declare class TollgateTimeoutError extends TollgateConnectionError {
    readonly name: string;
    constructor(timeoutMs: number, url: string);
}
/**
 * The codes `isTollgateError` accepts for a value: an error typed by its operation (caught from `unwrap`) takes that
 * operation's codes; anything else (`unknown` in a catch, an error `instanceof` typed with `any`) every declared one.
 */
type AcceptedCodes<Value> = Value extends TollgateError<infer Code> ? (string extends Code ? ErrorCode : Code) | ClientErrorCode : ErrorCode | ClientErrorCode;
/**
 * Whether `value` is a TollgateError, optionally with one of the given codes. Only codes that exist compile: those
 * of the error's operation when it is typed, else any code the API or the client declares.
 */
export declare function isTollgateError<Value, Code extends AcceptedCodes<Value>>(value: Value, ...codes: Code[]): value is Value & TollgateError<Code>;
/**
 * Resolves to the body of a successful openapi-fetch call, or throws a TollgateError typed with the error codes
 * the operation declares: `const status = await unwrap(client.GET('/subscriptions/status'))`.
 */
export declare function unwrap<T, E>(pending: Promise<{
    data?: T;
    error?: E;
    response: Response;
}>): Promise<NonNullable<T>>;
export {};
