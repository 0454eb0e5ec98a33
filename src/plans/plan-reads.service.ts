import { Injectable } from '@nestjs/common';
import { CACHE_TOPICS } from '../cache/cache-topics.js';
import { InvalidatedCache } from '../cache/invalidated-cache.js';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import { DEFAULT_PLAN_ID, type Plan } from './plan.js';
import { PlansService } from './plans.service.js';

interface CachedPlan {
  plan: Plan;
}

/**
 * `PlansService.find` behind a cache invalidated on every instance by the changing transaction (the plans trigger
 * writes the invalidation): the plan a subscription object names, read on every status and entitlements request.
 * Correct as of the access guard's barrier, so only for a request the guard admitted; a public route, a job or a
 * write path reads `PlansService.find`. An unknown id is not cached (404 each time, as before).
 */
@Injectable()
export class PlanReads {
  private readonly plans: InvalidatedCache<CachedPlan>;

  constructor(
    private readonly catalog: PlansService,
    log: InvalidationLog,
  ) {
    // Plans are few (PLANS_MAX offered, plus the archived ones subscribers keep).
    this.plans = new InvalidatedCache<CachedPlan>(log, {
      topic: CACHE_TOPICS.plan,
      maxEntries: 10_000,
      ttlMs: 300_000,
    });
  }

  /** Any plan, archived or not; 404 `plan_not_found`. */
  async find(id: string): Promise<Plan> {
    if (id === DEFAULT_PLAN_ID) return this.catalog.find(id);
    const cached = await this.plans.getOrLoad(id, async () => ({ plan: await this.catalog.find(id) }));
    return cached!.plan;
  }
}
