import type { TollgateClient } from './client.js';
import { unwrap } from './errors.js';
import type { components } from './schema.js';

type Subscription = components['schemas']['SubscriptionDto'];

export interface ChangePlanOptions {
  /** Another wallet's subscription (operators). */
  address?: string;
}

/**
 * Changes the plan of an active subscription (`POST /subscriptions/change-plan`): a plan dearer per second takes
 * effect at once with the time left converted, another is scheduled for the period end (`pendingPlan`), and the
 * current plan drops a scheduled change. Answers the subscription after it; a refusal throws a TollgateError
 * (`plan_not_found`, `plan_archived`, `subscription_not_active`, `plan_change_no_time_left`, …). The client sends
 * one Idempotency-Key per call, kept across its retries.
 *
 * `const { plan, pendingPlan } = await changePlan(tollgate, 'pro');`
 */
export function changePlan(
  client: TollgateClient,
  plan: string,
  options: ChangePlanOptions = {},
): Promise<Subscription> {
  const address = options.address === undefined ? {} : { address: options.address };
  return unwrap(client.POST('/subscriptions/change-plan', { body: { plan, ...address } }));
}
