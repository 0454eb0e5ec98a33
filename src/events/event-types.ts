/**
 * Every event the service emits. Webhook configurations filter on these names. The order is the one the API document,
 * the client and the dashboard list them in: by subject, each in the order of its life; a new type goes where it
 * happens.
 */
export const EVENT_TYPES = [
  'subscription.renewed',
  'subscription.trial_will_end',
  'subscription.plan_changed',
  'subscription.expiring',
  'subscription.payment_failed',
  'subscription.recovered',
  'subscription.canceled',
  'subscription.expired',
  'entitlements.updated',
  'api_key.created',
  'api_key.expiring',
  'api_key.expired',
  'api_key.revoked',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Subscription events reach operators' webhooks whatever the address; the others only the owner's. */
export const SUBSCRIPTION_EVENT_TYPES: readonly EventType[] = [
  'subscription.renewed',
  'subscription.trial_will_end',
  'subscription.plan_changed',
  'subscription.expiring',
  'subscription.payment_failed',
  'subscription.recovered',
  'subscription.canceled',
  'subscription.expired',
  // Derived from the subscription: an operator mirroring every wallet's subscription mirrors its features too.
  'entitlements.updated',
];
