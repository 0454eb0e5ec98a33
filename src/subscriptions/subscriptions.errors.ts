import { ApiError } from '../common/errors/api-error.js';

/** The subscriptions module's error codes, each with its HTTP status. */
export const SubscriptionErrors = {
  notFound: () =>
    ApiError.notFound(
      'subscription_not_found',
      'This address has never subscribed: there is nothing to cancel',
    ),
  invalidIdempotencyKey: (message: string) =>
    ApiError.badRequest('validation_failed', message, { fields: [{ field: 'Idempotency-Key', message }] }),
  idempotencyKeyReused: () =>
    ApiError.badRequest(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request: use a new key for a new request',
    ),
  idempotencyInProgress: () =>
    ApiError.conflict(
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still being processed: retry shortly',
    ),
};
