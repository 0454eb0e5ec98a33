import type { Principal } from '../../auth/principal.js';
import type { PaymentGatewayName } from '../../config/settings.js';

/** An ERC-20 transfer as the chain recorded it, identified by its log. Addresses lowercase. */
export interface TransferReference {
  chainId: number;
  token: string;
  payer: string;
  txHash: string;
  logIndex: number;
}

/** What a renewal asks to be paid for. */
export interface RenewalPaymentRequest {
  principal: Principal;
  /** Lowercase wallet address of the subscription. */
  address: string;
  /** The caller's proof of payment (lowercase), if it sent one; a gateway that takes none refuses it. */
  txHash: string | undefined;
  /** One period's price of the plan renewed, in the token's smallest unit; absent: `default`'s (the settings'). */
  pricePerPeriod?: bigint;
}

/** One way an approved payment can be credited. */
export interface PaymentCredit {
  /** Whole periods it buys; at least 1. */
  periods: number;
  /** In the currency's smallest unit. */
  amountMinor: bigint;
  /** Set for an on-chain payment: the log that may be credited once, ever. */
  transfer: TransferReference | null;
}

/**
 * The payment port: where a payment adapter plugs in. `approve` runs after the Idempotency-Key is claimed and
 * before the renewal's transaction: it may wait on the chain, which must not happen while the subscription row is
 * locked and a connection held. The gateway alone decides what a renewal must bring: it refuses by throwing (an
 * `ApiError` for an answer the client should see), a proof of payment it does not take included. The renewal then
 * records the first of the returned credits not credited before, in its own transaction with the row locked; a
 * unique index on the transfer makes an on-chain payment count once even when several renewals cite it at the same
 * moment.
 */
export interface PaymentGateway {
  readonly name: PaymentGatewayName;
  /** Credits in the order they should be tried; never empty. */
  approve(request: RenewalPaymentRequest): Promise<readonly PaymentCredit[]>;
  /** What a client needs to pay on chain (GET /subscriptions/plan); null when nobody pays through the API. */
  terms(): Promise<OnChainTerms | null>;
}

/** How to pay for a period on chain. */
export interface OnChainTerms {
  chainId: number;
  /** EIP-55. */
  token: string;
  symbol: string;
  decimals: number;
  /** EIP-55. */
  receiver: string;
  /** In the token's smallest unit. */
  pricePerPeriod: bigint;
  confirmations: number;
}

/** Injection token of the {@link PaymentGateway} chosen by `PAYMENT_GATEWAY`. */
export const PAYMENT_GATEWAY = Symbol('PAYMENT_GATEWAY');
