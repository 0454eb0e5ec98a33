import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';
import { DEFAULT_PLAN_ID, type Plan } from '../plans/plan.js';
import { PlansService } from '../plans/plans.service.js';
import type { AutoRenewDto } from './dto/subscription.dto.js';
import { AUTO_RENEW_OFF, SubscriptionAutoRenew } from './subscription-auto-renew.js';
import type { StoredSubscription } from './subscriptions.repository.js';

/** What the subscription object shows besides its row: its plans, and its automatic renewal. */
export interface SubscriptionPlans {
  plan: Pick<Plan, 'id' | 'name' | 'features'>;
  pending: Pick<Plan, 'id' | 'name'> | null;
  autoRenew: AutoRenewDto;
}

/**
 * The plans a stored subscription names, read through PlansService.find: `default` from memory, a stored plan by
 * its id (plans are never deleted, so every stored id resolves); and its automatic renewal (SubscriptionAutoRenew),
 * read in `tx` when the object is built in a transaction.
 */
@Injectable()
export class SubscriptionPlanReader {
  constructor(
    private readonly plans: PlansService,
    private readonly autoRenew: SubscriptionAutoRenew,
  ) {}

  async of(
    stored: Pick<StoredSubscription, 'address' | 'planId' | 'pendingPlanId'> | null,
    tx?: SqlExecutor,
  ): Promise<SubscriptionPlans> {
    const [plan, pending] = await Promise.all([
      this.plans.find(stored?.planId ?? DEFAULT_PLAN_ID),
      stored?.pendingPlanId ? this.plans.find(stored.pendingPlanId) : null,
    ]);
    // After the plans: one transaction's connection runs one statement at a time. Only a subscription has one.
    const autoRenew = stored ? await this.autoRenew.of(stored.address, tx) : AUTO_RENEW_OFF;
    return { plan, pending, autoRenew };
  }
}
