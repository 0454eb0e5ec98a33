import { HttpException, HttpStatus } from '@nestjs/common';

/** Keys the error object sets itself: `code` from the error, `requestId` from the request. */
export const RESERVED_DETAIL_KEYS = ['code', 'requestId'] as const;

type ReservedDetailKey = (typeof RESERVED_DETAIL_KEYS)[number];

/**
 * Extra, machine-readable facts about an error. A detail named like a reserved key is a compile error (and is
 * refused when the error is made): it would be overwritten in the response.
 */
export type ErrorDetails = Record<string, unknown> & { readonly [key in ReservedDetailKey]?: never };

/**
 * The one error type the service throws on purpose. The global filter turns it into the interface's error
 * object: `{ "error": message, "details": { "code": code, ...details } }`.
 */
export class ApiError extends HttpException {
  /** The same request may succeed later (what it depends on is still changing): an Idempotency-Key is not kept. */
  readonly retryable: boolean;

  constructor(
    status: HttpStatus,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
    options: { retryable?: boolean } = {},
  ) {
    super(message, status);
    // The type already refuses these; a value typed more loosely (a spread record) is caught here.
    const reserved = RESERVED_DETAIL_KEYS.filter((key) => Object.hasOwn(details, key));
    if (reserved.length > 0)
      throw new TypeError(`ApiError ${code}: reserved detail key(s) ${reserved.join(', ')}`);
    this.retryable = options.retryable ?? false;
  }

  static badRequest(code: string, message: string, details?: ErrorDetails): ApiError {
    return new ApiError(HttpStatus.BAD_REQUEST, code, message, details);
  }

  static unauthorized(code: string, message: string, details?: ErrorDetails): ApiError {
    return new ApiError(HttpStatus.UNAUTHORIZED, code, message, details);
  }

  static forbidden(code: string, message: string, details?: ErrorDetails): ApiError {
    return new ApiError(HttpStatus.FORBIDDEN, code, message, details);
  }

  static notFound(code: string, message: string, details?: ErrorDetails): ApiError {
    return new ApiError(HttpStatus.NOT_FOUND, code, message, details);
  }

  static conflict(code: string, message: string, details?: ErrorDetails): ApiError {
    return new ApiError(HttpStatus.CONFLICT, code, message, details);
  }
}
