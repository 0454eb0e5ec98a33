import type { SqlExecutor } from '../../database/database.service.js';

/** What a renewal asks to be paid. */
export interface PaymentRequest {
  /** Lowercase wallet address of the subscription. */
  address: string;
  /** The period being bought. */
  periodStart: Date;
  periodEnd: Date;
}

/**
 * The payment port (CONTRACT.md section 5): where a real payment adapter plugs in. A renewal calls `charge` inside
 * its transaction, with the subscription locked; an implementation records its payment through `tx`, so the payment
 * and the renewal commit or roll back together, and refuses by throwing (an `ApiError` for an answer the client
 * should see), which rolls the whole renewal back.
 */
export interface PaymentGateway {
  charge(tx: SqlExecutor, request: PaymentRequest): Promise<void>;
}

/** Injection token of the {@link PaymentGateway} chosen by `PAYMENT_GATEWAY`. */
export const PAYMENT_GATEWAY = Symbol('PAYMENT_GATEWAY');
