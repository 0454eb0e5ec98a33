import { ApiError } from '../common/errors/api-error.js';

/** The plans module's error codes, each with its HTTP status. */
export const PlanErrors = {
  notFound: () => ApiError.notFound('plan_not_found', 'No plan with this id'),
  exists: () => ApiError.conflict('plan_exists', 'A plan with this id exists (or it is `default`)'),
  archived: () => ApiError.conflict('plan_archived', 'This plan is archived: it cannot be newly chosen'),
  inUse: () =>
    ApiError.conflict(
      'plan_in_use',
      'The price and period of a plan with subscribers cannot change: create a new plan instead',
    ),
  readOnly: () =>
    ApiError.conflict(
      'plan_read_only',
      'The `default` plan is defined by the settings (SUBSCRIPTION_PERIOD_SECONDS, PAYMENT_PRICE_PER_PERIOD)',
    ),
  limitReached: (setting: 'PLANS_MAX' | 'PLAN_FEATURES_MAX', limit: number) =>
    ApiError.badRequest(
      'plan_limit_reached',
      setting === 'PLANS_MAX'
        ? `At most ${limit} plans may be offered at once: archive one first`
        : `A plan may list at most ${limit} features`,
      { setting, limit },
    ),
};
