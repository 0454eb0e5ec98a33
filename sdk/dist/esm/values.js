/** Every API key scope (`CreateApiKeyDto.scopes`), in the document's order. */
export const SCOPES = ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'];
/**
 * Every event type (`EventDto.type`), by subject and each in the order of its life: the types GET /events filters
 * on, and those a webhook configuration can ask for besides `'*'`.
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
];
