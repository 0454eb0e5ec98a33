import type { Database, SqlExecutor } from '../database/database.service.js';
import { ApiError } from '../common/errors/api-error.js';
import type { SubscriptionDto } from '../subscriptions/dto/subscription.dto.js';
import type { SubscriptionCredits } from '../subscriptions/subscription-credits.service.js';
import type { AutoRenewRepository, StoredMandate } from './auto-renew.repository.js';
import type { ChargeTransfer } from './charge-executor.js';

/** A collected charge of one of a mandate's periods, as it is credited. */
export interface CollectedCharge {
  index: number;
  source: 'free' | 'erc20';
  amountMinor: bigint;
  /** Null only where nothing moves (`free`). */
  transfer: ChargeTransfer | null;
  /** The period end the paid period follows (the renewal sweep's); none: as a manual payment's. */
  paysAfter?: Date;
}

/**
 * Credits a collected period once, for the renewal sweep and the Charged-log follower alike: `markCharged` (which
 * refuses an index credited before) and the payment (whose unique transfer refuses a second credit) in one
 * transaction, with `then` in it too. `transfer_used`: a manual renewal cited the transfer first, so the period is
 * only marked charged.
 */
export async function creditCharge(
  deps: { db: Database; repository: AutoRenewRepository; credits: SubscriptionCredits },
  mandate: StoredMandate,
  charge: CollectedCharge,
  then?: (tx: SqlExecutor, renewed: SubscriptionDto) => Promise<void>,
): Promise<'credited' | 'charged_before' | 'transfer_used'> {
  const { db, repository, credits } = deps;
  const write = (credit: boolean) =>
    db.transaction(async (tx) => {
      if (!(await repository.markCharged(tx, mandate.id, charge.index))) return false;
      if (!credit) return true;
      const renewed = await credits.creditPayment(
        tx,
        {
          address: mandate.address,
          actor: 'system',
          source: charge.source,
          periods: 1,
          periodSeconds: mandate.periodSeconds,
          ...(charge.paysAfter ? { paysAfter: charge.paysAfter } : {}),
        },
        { amountMinor: charge.amountMinor, transfer: charge.transfer },
      );
      await then?.(tx, renewed);
      return true;
    });
  try {
    return (await write(true)) ? 'credited' : 'charged_before';
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 'payment_already_used')) throw error;
    await write(false);
    return 'transfer_used';
  }
}
