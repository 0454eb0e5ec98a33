import { ChargeExecutor, type ChargeOutcome, type DueCharge } from '../../src/auto-renew/charge-executor.js';

/**
 * Test-only: collects `free` periods as zero payments like the real `free` executor, unless an outcome was queued
 * for the next charge; records every charge it is asked for.
 */
export class ScriptedChargeExecutor extends ChargeExecutor {
  readonly asked: DueCharge[] = [];
  private readonly queued: ChargeOutcome[] = [];

  next(...outcomes: ChargeOutcome[]): void {
    this.queued.push(...outcomes);
  }

  charge(due: DueCharge): Promise<ChargeOutcome> {
    this.asked.push(due);
    return Promise.resolve(this.queued.shift() ?? { kind: 'charged', amountMinor: 0n, transfer: null });
  }
}
