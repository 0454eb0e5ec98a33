import { HttpException, HttpStatus } from '@nestjs/common';

/** Extra, machine-readable facts about an error; `code` is always present in the response. */
export type ErrorDetails = Record<string, unknown>;

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
