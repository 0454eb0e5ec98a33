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
 * The plans a stored subscription names, read through PlansService.find: `default` from memory, a stored plan by
 * its id (plans are never deleted, so every stored id resolves).
 */
@Injectable()
export class SubscriptionPlanReader {
  constructor(private readonly plans: PlansService) {}

  /** `tx`: the caller's transaction, if it holds one (PlansService.find). */
  async of(
    stored: Pick<StoredSubscription, 'planId' | 'pendingPlanId'> | null,
    tx?: SqlExecutor,
  ): Promise<SubscriptionPlans> {
    // One after the other: a transaction's connection runs one statement at a time.
    const plan = await this.plans.find(stored?.planId ?? DEFAULT_PLAN_ID, tx);
    const pending = stored?.pendingPlanId ? await this.plans.find(stored.pendingPlanId, tx) : null;
    return { plan, pending };
  }
}
