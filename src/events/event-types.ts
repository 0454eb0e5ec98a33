/** Every event the service emits. Webhook configurations filter on these names. */
export const EVENT_TYPES = [
  'subscription.renewed',
  'subscription.canceled',
  'subscription.expired',
  'api_key.created',
  'api_key.revoked',
  'webhook.test',
  'subscription.expiring',
  'api_key.expiring',
  'api_key.expired',
  'entitlements.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Subscription events reach operators' webhooks whatever the address; the others only the owner's. */
export const SUBSCRIPTION_EVENT_TYPES: readonly EventType[] = [
  'subscription.renewed',
  'subscription.canceled',
  'subscription.expired',
  'subscription.expiring',
  // Derived from the subscription: an operator mirroring every wallet's subscription mirrors its features too.
  'entitlements.updated',
];
