import { checksumAddress } from '../common/address/wallet-address.js';
import type { PaymentDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { SYSTEM_ACTOR } from './subscription-event.entity.js';
import { subscriptionStatus } from './subscription-state.js';
import type { PaymentRow, StoredSubscription, SubscriptionEventRow } from './subscriptions.repository.js';

export const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

interface Views {
  /** While the period runs. */
  running?: SubscriptionDto;
  /** Once it is over: the row no longer changes by itself. */
  over?: SubscriptionDto;
}

const viewsOfRow = new WeakMap<StoredSubscription, Views>();

/**
 * {@link toSubscriptionDto} for a stored row that is never modified (a cached one): a row has only two possible
 * views, before and after its period end, so each is built once and shared. The status is still decided at `now`.
 */
export function subscriptionDtoOfRow(
  address: string,
  stored: StoredSubscription,
  now: Date,
): SubscriptionDto {
  let views = viewsOfRow.get(stored);
  if (views === undefined) {
    views = {};
    viewsOfRow.set(stored, views);
  }
  if (now.getTime() < stored.currentPeriodEnd.getTime()) {
    return (views.running ??= Object.freeze(toSubscriptionDto(address, stored, now)));
  }
  return (views.over ??= Object.freeze(toSubscriptionDto(address, stored, now)));
}

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
