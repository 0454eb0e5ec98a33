import { checksumAddress } from '../common/address/wallet-address.js';
import type { SubscriptionDto } from './dto/subscription.dto.js';
import { subscriptionStatus, type SubscriptionPeriodState } from './subscription-state.js';

/** A subscription row as the service works with it. */
export interface StoredSubscription extends SubscriptionPeriodState {
  /** Lowercase. */
  address: string;
  expiryRecordedFor: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** The subscription object of CONTRACT.md section 5, its status computed at `now`. */
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
