import { ApiError } from '../common/errors/api-error.js';

/** The webhooks module's error codes (the URL guard adds `webhook_url_invalid|forbidden|unresolvable`). */
export const WebhookErrors = {
  notFound: () =>
    ApiError.notFound('webhook_not_found', 'No webhook configuration with this id belongs to the caller'),
  limitReached: (limit: number) =>
    ApiError.badRequest(
      'webhook_limit_reached',
      `A wallet can have at most ${limit} webhook configurations`,
      {
        limit,
      },
    ),
  urlTaken: () =>
    ApiError.badRequest('webhook_url_taken', 'Another of your webhook configurations already uses this URL'),
  deliveryNotFound: () =>
    ApiError.notFound('webhook_delivery_not_found', 'No webhook delivery with this id belongs to the caller'),
  deliveryAttemptLimitReached: (limit: number) =>
    ApiError.badRequest(
      'webhook_delivery_attempt_limit_reached',
      `A delivery can be attempted at most ${limit} times: this one cannot be re-sent any more`,
      { limit },
    ),
  deliveryInProgress: () =>
    ApiError.conflict(
      'webhook_delivery_in_progress',
      'This delivery is being attempted right now; try again in a few seconds',
    ),
};
