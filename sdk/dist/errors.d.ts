/** The interface's error object: `{"error": "<message>", "details": {"code": "<stable_code>", ...}}`. */
export interface ErrorBody<Code extends string = string> {
    error: string;
    details: {
        code: Code;
        [key: string]: unknown;
    };
}
/**
 * A non-2xx answer from the API. `code` is the stable `details.code` to switch on; `message` is the human text.
 * Answers that are not the interface's error object (a proxy's HTML page, say) get the code `unexpected_response`.
 */
export declare class TollgateError<Code extends string = string> extends Error {
    readonly name = "TollgateError";
    readonly status: number;
    readonly error: string;
    readonly code: Code | 'unexpected_response';
    readonly details: ErrorBody<Code>['details'] | {
        code: 'unexpected_response';
    };
    constructor(status: number, body: unknown);
    /** The request id the service logged the failure under (`details.requestId`): quote it when reporting. */
    get requestId(): string | undefined;
}
/** Whether `value` is a TollgateError, optionally with one of the given codes. */
export declare function isTollgateError<Code extends string>(value: unknown, ...codes: Code[]): value is TollgateError<Code>;
/**
 * Resolves to the body of a successful openapi-fetch call, or throws a TollgateError typed with the error codes
 * the operation declares: `const status = await unwrap(client.GET('/subscriptions/status'))`.
 */
export declare function unwrap<T, E>(pending: Promise<{
    data?: T;
    error?: E;
    response: Response;
}>): Promise<NonNullable<T>>;
