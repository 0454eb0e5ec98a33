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
  planChangeRequired: () =>
    ApiError.conflict(
      'plan_change_required',
      'The subscription is active on another plan: change it with POST /subscriptions/change-plan',
    ),
  planChangePending: (pendingPlanId: string) =>
    ApiError.conflict(
      'plan_change_pending',
      `A change to ${pendingPlanId} is scheduled: the periods a renewal adds are on it. Renew without a plan (or ` +
        'naming it), or drop the change first with POST /subscriptions/change-plan naming the current plan',
      { pendingPlan: pendingPlanId },
    ),
  notActive: () =>
    ApiError.conflict(
      'subscription_not_active',
      'There is no active subscription to change the plan of: subscribe to the plan with POST /subscriptions/renew',
    ),
  noTimeLeft: () =>
    ApiError.conflict(
      'plan_change_no_time_left',
      'The time left on the current plan is worth less than one second of the new one (a free plan, or a period ' +
        'about to end): nothing would be carried over. Subscribe to the new plan with POST /subscriptions/renew ' +
        'once this period ends, or after a cancel now',
    ),
  planChanged: () =>
    ApiError.conflict(
      'plan_changed',
      "The plan's price or period changed while this request was paid for it: check the plan and retry",
    ),
  trialUnavailable: () =>
    ApiError.conflict(
      'trial_unavailable',
      'No trial: this wallet has had its trial of this plan, or its subscription is in force',
    ),
  idempotencyInProgress: () =>
    ApiError.conflict(
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still being processed: retry shortly',
    ),
};
