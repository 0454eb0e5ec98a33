import { ApiError } from '../common/errors/api-error.js';

/** The events module's error codes, each with its HTTP status. */
export const EventsErrors = {
  invalidTimeRange: () =>
    ApiError.badRequest('invalid_time_range', '`since` must not be after `until`', {
      fields: [{ field: 'since', message: 'since must not be after until' }],
    }),
};
