import type { Hex } from 'viem';
import type { ChargeRefusal, Mandate } from './mandate.js';

/** One period of a registered mandate that is due: what the renewal sweep asks the executor to collect. */
export interface DueCharge {
  /** The mandate's EIP-712 digest (`mandateHash`), which with `periodIndex` names the charge, once, ever. */
  mandateHash: Hex;
  mandate: Mandate;
  /** The payer's signature of the mandate, as registered (65-byte, ERC-1271 or ERC-6492 wrapped). */
  signature: Hex;
  periodIndex: bigint;
}

/** Why a charge was not collected: the contract's refusals, the chain unreachable, or the terms gone stale. */
export type ChargeFailure = ChargeRefusal | 'chain_unavailable' | 'terms_changed';

/** The ERC-20 transfer a charge made, as the chain logged it (addresses lowercase). */
export interface ChargeTransfer {
  chainId: number;
  token: string;
  payer: string;
  txHash: string;
  logIndex: number;
}

export type ChargeOutcome =
  /** Collected and confirmed: `transfer` is null only where nothing moves (`free`: a zero payment). */
  | { kind: 'charged'; amountMinor: bigint; transfer: ChargeTransfer | null }
  /** Sent, not yet confirmed (or a replacement in flight): ask again later with the same charge. */
  | { kind: 'pending' }
  /**
   * Not collected. `detail` is for a person ("allowance is 2 USDC, the period costs 5 USDC"); `retryable` says
   * whether trying again can succeed without a new mandate (a shortfall can, a revoked or ended mandate cannot).
   */
  | { kind: 'failed'; failure: ChargeFailure; detail: string; retryable: boolean };

/**
 * The port through which automatic renewal collects a period. Idempotent per (`mandateHash`, `periodIndex`):
 * asking again for a charge already sent never sends a second one, it reports the first (pending, or charged once
 * confirmed), also from another process and after a restart. It is called outside any database transaction (it
 * may wait on the chain); the caller credits a `charged` outcome in its own transaction, where the payment's
 * unique transfer makes a second credit impossible.
 */
export abstract class ChargeExecutor {
  abstract charge(due: DueCharge): Promise<ChargeOutcome>;

  /**
   * What became of a charge already asked for, without sending one: for a period that may no longer be charged (its
   * subscription over) but whose charge may be in flight. `charged` once confirmed, `pending` while in flight (or
   * another process is sending it), `failed` with `chain_unavailable` when that cannot be told; null when nothing
   * was sent or what was sent carried no charge.
   */
  abstract settle(due: DueCharge): Promise<ChargeOutcome | null>;
}

/**
 * Injection token of the executor in force: `free`'s, or under `erc20` the keeper's; null where none is (then the
 * renewal sweep does not run).
 */
export const CHARGE_EXECUTOR = Symbol('CHARGE_EXECUTOR');
