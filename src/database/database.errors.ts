import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';

/** The database's own error codes: every route that reads or writes may answer them (docs/operations.md). */
export const DatabaseErrors = {
  /**
   * The connection failed before anything was committed. Retryable: an Idempotency-Key is not kept for it. `cause`,
   * the driver's error, stays on the server (the health check tells an outage from a full server by it).
   */
  unavailable: (cause?: unknown) =>
    Object.assign(
      new ApiError(
        HttpStatus.SERVICE_UNAVAILABLE,
        'database_unavailable',
        'The database cannot be reached right now; nothing was changed. Try again shortly',
        {},
        { retryable: true },
      ),
      { cause },
    ),
  /** The connection broke while COMMIT was on its way: the server may have applied it or not. */
  commitOutcomeUnknown: () =>
    new ApiError(
      HttpStatus.SERVICE_UNAVAILABLE,
      'database_unavailable',
      'The database connection was lost while committing: the change may or may not have been applied. Read the ' +
        'current state, or repeat the request with the same Idempotency-Key where the route takes one',
      { outcome: 'unknown' },
      { retryable: true },
    ),
};

/**
 * Whether `error` is the database being unreachable: already logged once per outage (DatabaseAvailability), so a
 * caller that logs its own failures can leave these out.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'database_unavailable';
}
