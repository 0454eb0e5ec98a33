/** The interface's error object: `{"error": "<message>", "details": {"code": "<stable_code>", ...}}`. */
export interface ErrorBody<Code extends string = string> {
  error: string;
  details: { code: Code; [key: string]: unknown };
}

/**
 * A non-2xx answer from the API. `code` is the stable `details.code` to switch on; `message` is the human text.
 * Answers that are not the interface's error object (a proxy's HTML page, say) get the code `unexpected_response`.
 */
export class TollgateError<Code extends string = string> extends Error {
  override readonly name = 'TollgateError';
  readonly status: number;
  readonly error: string;
  readonly code: Code | 'unexpected_response';
  readonly details: ErrorBody<Code>['details'] | { code: 'unexpected_response' };

  constructor(status: number, body: unknown) {
    const parsed = isErrorBody(body) ? (body as ErrorBody<Code>) : undefined;
    const error = parsed?.error ?? `HTTP ${status}`;
    super(error);
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

/** Whether `value` is a TollgateError, optionally with one of the given codes. */
export function isTollgateError<Code extends string>(
  value: unknown,
  ...codes: Code[]
): value is TollgateError<Code> {
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
