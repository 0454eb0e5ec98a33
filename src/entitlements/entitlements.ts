/** What the entitlement rules read of a subscription: the plan, and the features it puts in force now. */
export interface SubscriptionInForce {
  readonly address: string;
  readonly plan: { readonly id: string; readonly name: string };
  /** Non-empty only while the subscription is in force (the subscriptions room decides when). */
  readonly features: readonly string[];
  readonly currentPeriodEnd: string | null;
  /** While a failed payment is retried, the features stay on past the period end until this. */
  readonly graceEndsAt: string | null;
}

export interface EntitlementList {
  address: string;
  plan: { id: string; name: string };
  features: string[];
  until: string | null;
}

export interface Entitlement {
  address: string;
  feature: string;
  entitled: boolean;
  plan: { id: string; name: string };
  until: string | null;
}

/**
 * Every feature in force and until when. Nothing here reads a status: the subscription's `features` are already
 * those in force now, so the state rules stay in the subscriptions room. `until` is when they end unless renewed
 * (the period end, or the grace's end while a failed payment is retried) while anything is in force, else null.
 */
export function entitlementsOf(subscription: SubscriptionInForce): EntitlementList {
  const features = [...subscription.features];
  return {
    address: subscription.address,
    plan: { id: subscription.plan.id, name: subscription.plan.name },
    features,
    until: features.length > 0 ? inForceUntil(subscription) : null,
  };
}

/** Whether one feature is in force; `until` as in the list while it is, else null. */
export function entitlementOf(subscription: SubscriptionInForce, feature: string): Entitlement {
  const entitled = subscription.features.includes(feature);
  return {
    address: subscription.address,
    feature,
    entitled,
    plan: { id: subscription.plan.id, name: subscription.plan.name },
    until: entitled ? inForceUntil(subscription) : null,
  };
}

function inForceUntil(subscription: SubscriptionInForce): string | null {
  return subscription.graceEndsAt ?? subscription.currentPeriodEnd;
}
