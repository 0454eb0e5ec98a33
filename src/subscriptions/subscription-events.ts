import { checksumAddress } from '../common/address/wallet-address.js';
import type { NewEvent } from '../events/event-outbox.service.js';
import type { SubscriptionExpiringDataDto } from './dto/subscription-expiring-event.dto.js';
import type { SubscriptionTrialWillEndDataDto } from './dto/subscription-trial-will-end-event.dto.js';
import type { SubscriptionDto } from './dto/subscription.dto.js';
import type { PaymentCredit } from './payment/payment-gateway.js';
import type { SubscriptionRelations } from './subscription-plans.js';
import { coveredUntil } from './subscription-state.js';
import { iso, paymentDto, toSubscriptionDto } from './subscription-view.js';
import type { StoredSubscription } from './subscriptions.repository.js';

/*
 * The outbox events of subscription changes (docs/webhooks.md): `data` is the subscription object after the change
 * with the period end before it, plus what is particular to the change.
 */

/** `subscription.renewed`, with the periods bought and the payment that bought them. */
export function renewedEvent(
  subscription: SubscriptionDto,
  change: { address: string; now: Date; previousPeriodEnd: Date | null },
  credit: PaymentCredit,
  gateway: string,
): NewEvent {
  const { transfer } = credit;
  return {
    type: 'subscription.renewed',
    address: change.address,
    data: {
      ...subscription,
      previousPeriodEnd: iso(change.previousPeriodEnd),
      periods: credit.periods,
      payment: paymentDto({
        gateway,
        amountMinor: credit.amountMinor.toString(),
        chainId: transfer && String(transfer.chainId),
        token: transfer && transfer.token,
        payer: transfer && transfer.payer,
        txHash: transfer && transfer.txHash,
        logIndex: transfer && transfer.logIndex,
      }),
    },
    occurredAt: change.now,
  };
}

/**
 * `subscription.plan_changed`: the subscription after the change (on `plan`, until `currentPeriodEnd`), the plan it
 * left, when the change took effect and whether it had been scheduled for then.
 */
export function planChangedEvent(
  subscription: SubscriptionDto,
  change: { address: string; now: Date; previousPeriodEnd: Date; effectiveAt: Date; scheduled: boolean },
  previousPlan: Pick<SubscriptionRelations['plan'], 'id' | 'name'>,
): NewEvent {
  return {
    type: 'subscription.plan_changed',
    address: change.address,
    data: {
      ...subscription,
      previousPeriodEnd: iso(change.previousPeriodEnd),
      previousPlan: { id: previousPlan.id, name: previousPlan.name },
      effectiveAt: change.effectiveAt.toISOString(),
      scheduled: change.scheduled,
    },
    occurredAt: change.now,
  };
}

/**
 * `subscription.canceled`: at period end, or `immediate`. `stopped`: the service canceled it because its automatic
 * renewal can no longer charge (the mandate revoked or used up), with the reason in words.
 */
export function canceledEvent(
  subscription: SubscriptionDto,
  change: { address: string; now: Date; previousPeriodEnd: Date },
  immediate: boolean,
  stopped?: { reason: string; message: string },
): NewEvent {
  return {
    type: 'subscription.canceled',
    address: change.address,
    data: {
      ...subscription,
      previousPeriodEnd: iso(change.previousPeriodEnd),
      immediate,
      ...(stopped && { reason: stopped.reason, message: stopped.message }),
    },
    occurredAt: change.now,
  };
}

/** Why an automatic charge failed and what comes next, as `subscription.payment_failed` tells it. */
export interface PaymentFailure {
  /** A code (AutoRenewFailureDto.reason). */
  reason: string;
  /** For a person: what is wrong and what to do. */
  message: string;
  /** The next attempt; null when none is left before the grace runs out. */
  nextAttemptAt: Date | null;
}

/** `subscription.payment_failed`: an automatic charge failed; the subscription is `past_due` until `graceUntil`. */
export function paymentFailedEvent(
  subscription: SubscriptionDto,
  change: { address: string; now: Date; graceUntil: Date },
  failure: PaymentFailure,
): NewEvent {
  return {
    type: 'subscription.payment_failed',
    address: change.address,
    data: {
      ...subscription,
      reason: failure.reason,
      message: failure.message,
      nextAttemptAt: iso(failure.nextAttemptAt),
      graceEndsAt: change.graceUntil.toISOString(),
    },
    occurredAt: change.now,
  };
}

/** `subscription.recovered`: a `past_due` subscription was paid for (after its `subscription.renewed`). */
export function recoveredEvent(
  subscription: SubscriptionDto,
  change: { address: string; now: Date },
): NewEvent {
  return {
    type: 'subscription.recovered',
    address: change.address,
    data: { ...subscription },
    occurredAt: change.now,
  };
}

/** `subscription.expired` of a period that ran out, recorded at `now`. */
export function expiredEvent(
  subscription: StoredSubscription,
  now: Date,
  plans: SubscriptionRelations,
): NewEvent {
  // Seen from its own end (or its grace's), a period is no longer in force: `canceled` or `expired`.
  const ended = toSubscriptionDto(subscription.address, subscription, coveredUntil(subscription), plans);
  return {
    type: 'subscription.expired',
    address: subscription.address,
    data: { ...ended, reason: expiryReason(subscription, ended.status) },
    occurredAt: now,
  };
}

/**
 * A cancel comes first (the holder asked); then a grace that ran out (automatic renewal could not charge); else a
 * period that was all trial ended unpaid, or one not renewed.
 */
function expiryReason(
  subscription: StoredSubscription,
  status: SubscriptionDto['status'],
): 'canceled' | 'payment_failed' | 'trial_ended' | 'not_renewed' {
  if (status === 'canceled') return 'canceled';
  if (subscription.graceUntil !== null) return 'payment_failed';
  const trialEnd = subscription.trialEnd?.getTime();
  return trialEnd === subscription.currentPeriodEnd.getTime() ? 'trial_ended' : 'not_renewed';
}

/**
 * The events of a period that ran out, recorded at `now`: `subscription.expired`, and `entitlements.updated` for the
 * features it ends, unless a cancel now told of their end already (its period ends when it was canceled).
 */
export function expiryEvents(
  subscription: StoredSubscription,
  now: Date,
  plans: SubscriptionRelations,
): NewEvent[] {
  const events = [expiredEvent(subscription, now, plans)];
  const endedByCancel = subscription.canceledAt?.getTime() === subscription.currentPeriodEnd.getTime();
  const address = checksumAddress(subscription.address);
  const entitlements = endedByCancel
    ? null
    : entitlementsEvent(plans.plan.features, { address, plan: plans.plan, features: [] }, now);
  if (entitlements) events.push(entitlements);
  return events;
}

/** `subscription.expiring`: an active period within the notice of its end, seen at `now`. */
export function expiringEvent(
  subscription: StoredSubscription,
  now: Date,
  plans: SubscriptionRelations,
): NewEvent {
  const data: SubscriptionExpiringDataDto = {
    ...toSubscriptionDto(subscription.address, subscription, now, plans),
    endsInSeconds: Math.floor((subscription.currentPeriodEnd.getTime() - now.getTime()) / 1000),
  };
  return { type: 'subscription.expiring', address: subscription.address, data: { ...data }, occurredAt: now };
}

/** `subscription.trial_will_end`: a trial within the notice of its end, seen at `now`. */
export function trialWillEndEvent(
  subscription: StoredSubscription & { trialEnd: Date },
  now: Date,
  plans: SubscriptionRelations,
): NewEvent {
  const data: SubscriptionTrialWillEndDataDto = {
    ...toSubscriptionDto(subscription.address, subscription, now, plans),
    trialEndsInSeconds: Math.floor((subscription.trialEnd.getTime() - now.getTime()) / 1000),
  };
  return {
    type: 'subscription.trial_will_end',
    address: subscription.address,
    data: { ...data },
    occurredAt: now,
  };
}

/**
 * `entitlements.updated` when the features in force changed from `before` to `after.features` (as sets), else null.
 * Recorded in the transaction of the change that caused it.
 */
export function entitlementsEvent(
  before: readonly string[],
  after: Pick<SubscriptionDto, 'address' | 'plan' | 'features'>,
  now: Date,
): NewEvent | null {
  const was = new Set(before);
  if (was.size === after.features.length && after.features.every((feature) => was.has(feature))) return null;
  return {
    type: 'entitlements.updated',
    address: after.address.toLowerCase(),
    data: {
      address: after.address,
      plan: { id: after.plan.id, name: after.plan.name },
      features: [...after.features],
    },
    occurredAt: now,
  };
}
