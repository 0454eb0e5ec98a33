import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';

/** The events module's error codes, each with its HTTP status. */
export const EventsErrors = {
  invalidTimeRange: () =>
    ApiError.badRequest('invalid_time_range', '`since` must not be after `until`', {
      fields: [{ field: 'since', message: 'since must not be after until' }],
    }),
  // Retryable: the same request succeeds once older events leave the window (an Idempotency-Key is not kept).
  limitReached: (limit: number) =>
    new ApiError(
      HttpStatus.CONFLICT,
      'event_limit_reached',
      `At most ${limit} events a day may be recorded about one wallet (EVENTS_MAX_PER_WALLET_PER_DAY): try again later`,
      { limit, windowHours: 24 },
      { retryable: true },
    ),
};
