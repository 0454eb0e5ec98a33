import { checksumAddress } from '../common/address/wallet-address.js';
import type { PaymentDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { SYSTEM_ACTOR } from './subscription-event.entity.js';
import type { SubscriptionRelations } from './subscription-plans.js';
import { inForce, subscriptionStatus, type SubscriptionStatus } from './subscription-state.js';
import type { PaymentRow, StoredSubscription, SubscriptionEventRow } from './subscriptions.repository.js';

export const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** The subscription object without what its plans say, which an operator may change while the row does not. */
type RowView = Omit<SubscriptionDto, 'plan' | 'features' | 'pendingPlan' | 'autoRenew'>;

/**
 * A view, and the plan and auto-renewal objects it was built with: the same ones (`default`, from memory; a cached
 * auto-renewal) give the same view.
 */
interface View {
  plan: SubscriptionRelations['plan'];
  pending: SubscriptionRelations['pending'];
  autoRenew: SubscriptionRelations['autoRenew'];
  dto: SubscriptionDto;
}

/** A row's views by status: the row changes its status by itself only as the clock passes its ends. */
type Views = Partial<Record<SubscriptionStatus, View>>;

const viewsOfRow = new WeakMap<StoredSubscription, Views>();

/**
 * {@link toSubscriptionDto} for a stored row that is never modified (a cached one): a row has one view per status it
 * passes through as the clock runs (trialing, active or past_due, then over), so each is built once and shared. The
 * status is still decided at `now`.
 */
export function subscriptionDtoOfRow(
  address: string,
  stored: StoredSubscription,
  now: Date,
  plans: SubscriptionRelations,
): SubscriptionDto {
  let views = viewsOfRow.get(stored);
  if (views === undefined) {
    views = {};
    viewsOfRow.set(stored, views);
  }
  const which = subscriptionStatus(stored, now);
  const view = views[which];
  if (view?.plan === plans.plan && view.pending === plans.pending && view.autoRenew === plans.autoRenew) {
    return view.dto;
  }
  const dto = Object.freeze(toSubscriptionDto(address, stored, now, plans));
  views[which] = { plan: plans.plan, pending: plans.pending, autoRenew: plans.autoRenew, dto };
  return dto;
}

/** The subscription object, its status computed at `now`, naming the `plans` of its row. */
export function toSubscriptionDto(
  address: string,
  stored: StoredSubscription | null,
  now: Date,
  plans: SubscriptionRelations,
): SubscriptionDto {
  return withPlans(rowView(address, stored, now), stored, plans);
}

function withPlans(
  view: RowView,
  stored: StoredSubscription | null,
  { plan, pending, autoRenew }: SubscriptionRelations,
): SubscriptionDto {
  return {
    ...view,
    plan: { id: plan.id, name: plan.name },
    features: view.active ? [...plan.features] : [],
    pendingPlan:
      pending && stored?.pendingPlanAt
        ? { id: pending.id, name: pending.name, effectiveAt: stored.pendingPlanAt.toISOString() }
        : null,
    autoRenew,
  };
}

function rowView(address: string, stored: StoredSubscription | null, now: Date): RowView {
  const status = subscriptionStatus(stored, now);
  return {
    address: checksumAddress(address),
    status,
    active: inForce(status),
    currentPeriodStart: iso(stored?.currentPeriodStart ?? null),
    currentPeriodEnd: iso(stored?.currentPeriodEnd ?? null),
    cancelAtPeriodEnd: stored?.cancelAtPeriodEnd ?? false,
    canceledAt: iso(stored?.canceledAt ?? null),
    createdAt: iso(stored?.createdAt ?? null),
    updatedAt: iso(stored?.updatedAt ?? null),
    trialEnd: iso(stored?.trialEnd ?? null),
    graceEndsAt: status === 'past_due' ? iso(stored?.graceUntil ?? null) : null,
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
    planChange:
      row.previousPlanId !== null && row.planId !== null
        ? { from: row.previousPlanId, to: row.planId }
        : null,
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
