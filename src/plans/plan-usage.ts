import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';

/** Whether, in `tx`, any subscription is on the plan (or has it scheduled): its price and period are then fixed. */
export type PlanUsageCheck = (tx: SqlExecutor, planId: string) => Promise<boolean>;

/**
 * The port through which the plans room asks whether a plan has subscribers, without importing subscriptions (which
 * imports plans). The subscriptions module registers its check at start, as api-keys registers its revoker with
 * auth's SessionKeyRevocation. The check runs in the plan update's transaction, after the plan's row is locked
 * `FOR UPDATE`; a subscription that takes the plan locks the same row `FOR SHARE`, so the two cannot interleave.
 * Until a check is registered no subscription can name a plan, so none has subscribers.
 */
@Injectable()
export class PlanUsage {
  private check: PlanUsageCheck | undefined;

  register(check: PlanUsageCheck): void {
    this.check = check;
  }

  inUse(tx: SqlExecutor, planId: string): Promise<boolean> {
    return this.check ? this.check(tx, planId) : Promise.resolve(false);
  }
}
