import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';
import { DEFAULT_PLAN_ID, type Plan } from '../plans/plan.js';
import { PlansService } from '../plans/plans.service.js';
import type { AutoRenewDto } from './dto/subscription.dto.js';
import { AUTO_RENEW_OFF, SubscriptionAutoRenew } from './subscription-auto-renew.js';
import type { StoredSubscription } from './subscriptions.repository.js';

/** What the subscription object shows besides its row, read from other rooms: its plans and its automatic renewal. */
export interface SubscriptionRelations {
  plan: Pick<Plan, 'id' | 'name' | 'features'>;
  pending: Pick<Plan, 'id' | 'name'> | null;
  autoRenew: AutoRenewDto;
}

/**
 * The plans a stored subscription names, each read by `find`: `default` from memory, a stored plan by its id (plans
 * are never deleted, so every stored id resolves); and its automatic renewal, read by `autoRenew`.
 */
export async function relationsOf(
  stored: Pick<StoredSubscription, 'address' | 'planId' | 'pendingPlanId'> | null,
  find: (id: string) => Promise<Plan>,
  autoRenew: (address: string) => Promise<AutoRenewDto>,
): Promise<SubscriptionRelations> {
  // One after the other: inside a transaction its one connection runs one statement at a time.
  const plan = await find(stored?.planId ?? DEFAULT_PLAN_ID);
  const pending = stored?.pendingPlanId ? await find(stored.pendingPlanId) : null;
  // Only a subscription has one.
  const renewal = stored ? await autoRenew(stored.address) : AUTO_RENEW_OFF;
  return { plan, pending, autoRenew: renewal };
}

/**
 * {@link relationsOf} through PlansService.find, uncached: for jobs and write paths, which no barrier admitted, with the
 * automatic renewal read in `tx` when the object is built in a transaction. A request's read goes through the plan
 * cache instead (SubscriptionLookup).
 */
@Injectable()
export class SubscriptionPlanReader {
  constructor(
    private readonly plans: PlansService,
    private readonly autoRenew: SubscriptionAutoRenew,
  ) {}

  /** One plan by its id (`tx` as for {@link of}). */
  plan(id: string, tx?: SqlExecutor): Promise<Plan> {
    return this.plans.find(id, tx);
  }

  /** `tx`: the caller's transaction, if it holds one (PlansService.find, SubscriptionAutoRenew.of). */
  of(
    stored: Pick<StoredSubscription, 'address' | 'planId' | 'pendingPlanId'> | null,
    tx?: SqlExecutor,
  ): Promise<SubscriptionRelations> {
    return relationsOf(
      stored,
      (id) => this.plans.find(id, tx),
      (address) => this.autoRenew.of(address, tx),
    );
  }
}
