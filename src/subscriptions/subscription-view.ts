import { checksumAddress } from '../common/address/wallet-address.js';
import type { PaymentDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { SYSTEM_ACTOR } from './subscription-event.entity.js';
import { subscriptionStatus } from './subscription-state.js';
import type { PaymentRow, StoredSubscription, SubscriptionEventRow } from './subscriptions.repository.js';

export const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** The subscription object, its status computed at `now`. */
export function toSubscriptionDto(
  address: string,
  stored: StoredSubscription | null,
  now: Date,
): SubscriptionDto {
  const status = subscriptionStatus(stored, now);
  return {
    address: checksumAddress(address),
    status,
    active: status === 'active',
    currentPeriodStart: iso(stored?.currentPeriodStart ?? null),
    currentPeriodEnd: iso(stored?.currentPeriodEnd ?? null),
    cancelAtPeriodEnd: stored?.cancelAtPeriodEnd ?? false,
    canceledAt: iso(stored?.canceledAt ?? null),
    createdAt: iso(stored?.createdAt ?? null),
    updatedAt: iso(stored?.updatedAt ?? null),
  };
}

/** A history entry as the API shows it. */
export function historyDto(row: SubscriptionEventRow): SubscriptionEventDto {
  return {
    id: row.id,
    type: row.type,
    at: row.at.toISOString(),
    actor: row.actor === SYSTEM_ACTOR ? SYSTEM_ACTOR : checksumAddress(row.actor),
    previousPeriodEnd: iso(row.previousPeriodEnd),
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
    payment: row.payment && paymentDto(row.payment),
  };
}

/** A renewal's payment as the API shows it (history entries, `subscription.renewed`). */
export function paymentDto(row: PaymentRow): PaymentDto {
  return {
    gateway: row.gateway,
    amount: row.amountMinor,
    chainId: row.chainId === null ? null : Number(row.chainId),
    token: row.token && checksumAddress(row.token),
    payer: row.payer && checksumAddress(row.payer),
    txHash: row.txHash,
    logIndex: row.logIndex,
  };
}
