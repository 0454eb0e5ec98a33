import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import type { SqlExecutor } from '../database/database.service.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import type { CreatePlanDto, UpdatePlanDto } from './dto/plan.dto.js';
import { DEFAULT_PLAN_ID, defaultPlan, PLAN_ID, type Plan } from './plan.js';
import { PlanUsage } from './plan-usage.js';
import { PlanErrors } from './plans.errors.js';
import { PlansRepository, type PlanChanges } from './plans.repository.js';

/**
 * The plans a wallet may subscribe to: `default` from the settings, and the ones operators create. Other rooms
 * (subscriptions, entitlements) read plans through `find`; nothing here knows about subscriptions beyond the
 * PlanUsage port they implement.
 */
@Injectable()
export class PlansService {
  private readonly defaultPlan: Plan;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: PlansRepository,
    private readonly usage: PlanUsage,
  ) {
    this.defaultPlan = defaultPlan(config);
  }

  /** Offered plans, `default` first, then in creation order; with `archived`, the archived ones too. */
  async list(archived: boolean): Promise<Plan[]> {
    return [this.defaultPlan, ...(await this.repository.list(archived))];
  }

  /**
   * Any plan, archived or not; 404 `plan_not_found`. Within a transaction, pass it as `tx`: the read then runs on its
   * connection rather than waiting for a second one from the pool.
   */
  async find(id: string, tx?: SqlExecutor): Promise<Plan> {
    if (id === DEFAULT_PLAN_ID) return this.defaultPlan;
    // An id no plan can have is answered without a query.
    const plan = PLAN_ID.test(id) ? await this.repository.find(id, tx) : null;
    if (!plan) throw PlanErrors.notFound();
    return plan;
  }

  /**
   * {@link find} for a subscription that takes the plan in `tx`: a stored plan is read under a FOR SHARE lock held
   * until `tx` ends, so its price and period cannot change before the subscription is written (PlanUsage).
   */
  async hold(tx: SqlExecutor, id: string): Promise<Plan> {
    if (id === DEFAULT_PLAN_ID) return this.defaultPlan;
    const plan = PLAN_ID.test(id) ? await this.repository.findForShare(tx, id) : null;
    if (!plan) throw PlanErrors.notFound();
    return plan;
  }

  async create(body: CreatePlanDto): Promise<Plan> {
    if (body.id === DEFAULT_PLAN_ID) throw PlanErrors.exists();
    const features = body.features ?? [];
    this.checkFeatureCount(features);
    const created = await this.repository.create(
      {
        id: body.id,
        name: body.name,
        description: body.description ?? '',
        periodSeconds: body.periodSeconds,
        pricePerPeriod: BigInt(body.pricePerPeriod),
        features,
        trialSeconds: body.trialSeconds ?? null,
      },
      this.config.plansMax,
    );
    if ('plan' in created) return created.plan;
    throw created.refused === 'exists'
      ? PlanErrors.exists()
      : PlanErrors.limitReached('PLANS_MAX', this.config.plansMax);
  }

  async update(id: string, body: UpdatePlanDto): Promise<Plan> {
    this.checkEditable(id);
    if (body.features !== undefined) this.checkFeatureCount(body.features);
    const changes: PlanChanges = {
      name: body.name,
      description: body.description,
      features: body.features,
      trialSeconds: body.trialSeconds,
      periodSeconds: body.periodSeconds,
      pricePerPeriod: body.pricePerPeriod === undefined ? undefined : BigInt(body.pricePerPeriod),
    };
    const updated = await this.repository.update(id, changes, (tx, planId) => this.usage.inUse(tx, planId));
    if ('plan' in updated) return updated.plan;
    throw updated.refused === 'in_use' ? PlanErrors.inUse() : PlanErrors.notFound();
  }

  async archive(id: string): Promise<Plan> {
    this.checkEditable(id);
    const plan = await this.repository.archive(id);
    if (!plan) throw PlanErrors.notFound();
    return plan;
  }

  /** `default` is the settings'; an id no plan can have is 404 before any query. */
  private checkEditable(id: string): void {
    if (id === DEFAULT_PLAN_ID) throw PlanErrors.readOnly();
    if (!PLAN_ID.test(id)) throw PlanErrors.notFound();
  }

  private checkFeatureCount(features: readonly string[]): void {
    if (features.length > this.config.planFeaturesMax) {
      throw PlanErrors.limitReached('PLAN_FEATURES_MAX', this.config.planFeaturesMax);
    }
  }
}
