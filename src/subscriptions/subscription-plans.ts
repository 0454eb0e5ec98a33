import { Injectable } from '@nestjs/common';
import { DEFAULT_PLAN_ID, type Plan } from '../plans/plan.js';
import { PlansService } from '../plans/plans.service.js';
import type { SqlExecutor } from '../database/database.service.js';
import type { StoredSubscription } from './subscriptions.repository.js';

/** What the subscription object shows of its plans. */
export interface SubscriptionPlans {
  plan: Pick<Plan, 'id' | 'name' | 'features'>;
  pending: Pick<Plan, 'id' | 'name'> | null;
}

/**
 * The plans a stored subscription names, each read by `find`: `default` from memory, a stored plan by its id (plans
 * are never deleted, so every stored id resolves).
 */
export async function plansOf(
  stored: Pick<StoredSubscription, 'planId' | 'pendingPlanId'> | null,
  find: (id: string) => Promise<Plan>,
): Promise<SubscriptionPlans> {
  // One after the other: inside a transaction its one connection runs one statement at a time.
  const plan = await find(stored?.planId ?? DEFAULT_PLAN_ID);
  const pending = stored?.pendingPlanId ? await find(stored.pendingPlanId) : null;
  return { plan, pending };
}

/**
 * {@link plansOf} through PlansService.find, uncached: for jobs and write paths, which no barrier admitted. A
 * request's read goes through the plan cache instead (SubscriptionLookup).
 */
@Injectable()
export class SubscriptionPlanReader {
  constructor(private readonly plans: PlansService) {}

  /** `tx`: the caller's transaction, if it holds one (PlansService.find). */
  of(
    stored: Pick<StoredSubscription, 'planId' | 'pendingPlanId'> | null,
    tx?: SqlExecutor,
  ): Promise<SubscriptionPlans> {
    return plansOf(stored, (id) => this.plans.find(id, tx));
  }
}
