import { ChargeExecutor, type ChargeOutcome } from './charge-executor.js';

/** `PAYMENT_GATEWAY=free`: every period is collected as a zero payment, so the whole flow runs without a chain. */
export class FreeChargeExecutor extends ChargeExecutor {
  charge(): Promise<ChargeOutcome> {
    return Promise.resolve({ kind: 'charged', amountMinor: 0n, transfer: null });
  }

  /** A zero payment is collected as it is asked for: none is ever in flight. */
  settle(): Promise<ChargeOutcome | null> {
    return Promise.resolve(null);
  }
}
