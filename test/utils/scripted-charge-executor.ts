import { ChargeExecutor, type ChargeOutcome, type DueCharge } from '../../src/auto-renew/charge-executor.js';
import type { WalletSession } from './wallet.js';

const ZERO_PAYMENT: ChargeOutcome = { kind: 'charged', amountMinor: 0n, transfer: null };

/**
 * Test-only: collects `free` periods as zero payments like the real `free` executor, unless an outcome was queued
 * for the next charge or a payer's charges are held; records every charge it is asked for.
 */
export class ScriptedChargeExecutor extends ChargeExecutor {
  readonly asked: DueCharge[] = [];
  private readonly queued: ChargeOutcome[] = [];
  /** Payer (lowercase) → the answer to each of its charges while held (`pending`: in flight; the chain down). */
  private readonly held = new Map<string, ChargeOutcome>();
  /** `payer:index` of the charges answered `pending`: sent, collected once released. */
  private readonly sent = new Set<string>();

  next(...outcomes: ChargeOutcome[]): void {
    this.queued.push(...outcomes);
  }

  hold(payer: string, outcome: ChargeOutcome | null): void {
    if (outcome) this.held.set(payer.toLowerCase(), outcome);
    else this.held.delete(payer.toLowerCase());
  }

  charge(due: DueCharge): Promise<ChargeOutcome> {
    this.asked.push(due);
    const payer = due.mandate.payer.toLowerCase();
    const held = this.held.get(payer);
    if (held?.kind === 'pending') this.sent.add(`${payer}:${due.periodIndex}`);
    return Promise.resolve(held ?? this.queued.shift() ?? ZERO_PAYMENT);
  }

  /** A charge answered `pending` is in flight while held, then collected; no other was ever sent. */
  settle(due: DueCharge): Promise<ChargeOutcome | null> {
    const payer = due.mandate.payer.toLowerCase();
    if (!this.sent.has(`${payer}:${due.periodIndex}`)) return Promise.resolve(null);
    return Promise.resolve(this.held.get(payer) ?? ZERO_PAYMENT);
  }

  askedOf(session: WalletSession): DueCharge[] {
    return this.asked.filter((due) => due.mandate.payer.toLowerCase() === session.address.toLowerCase());
  }
}
