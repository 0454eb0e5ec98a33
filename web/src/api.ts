/**
 * Every call the dashboard makes to the Tollgate API, in one module, through the typed client `@tollgate/client`
 * (generated from docs/openapi.yaml). Same origin, session cookie (HttpOnly, set by POST /auth/verify); the browser
 * adds the Origin header that the service's CSRF check wants on cookie-authenticated POSTs.
 */
import {
  createTollgateClient,
  EVENT_TYPES,
  SCOPES,
  TollgateConnectionError,
  TollgateError,
  unwrap,
  type operations,
  type Schema,
} from '@tollgate/client';

export { TollgateError as ApiError };

/**
 * The lists the page shows come from the client, generated from the API document in its order: every scope, and every
 * event type by subject, each in the order of its life (the Events tab's filter, the webhook form's checkboxes).
 */
export { EVENT_TYPES, SCOPES };
export type Scope = Schema<'CreateApiKeyDto'>['scopes'][number];

export type Session = Schema<'CurrentSessionDto'>;
export type Subscription = Schema<'SubscriptionDto'>;
export type SubscriptionStatus = Subscription['status'];
/** A subscription's automatic renewal: its next charge, amount, allowance shortfall and latest failure. */
export type AutoRenew = Schema<'AutoRenewDto'>;
/** What a mandate is built from (`GET /subscriptions/plan`, `autoRenew`): null where it is not offered. */
export type AutoRenewTerms = Schema<'AutoRenewTermsDto'>;
/** The EIP-712 mandate a payer signs under `erc20`, integers as decimal strings. */
export type Mandate = Schema<'MandateDto'>;
export type SubscriptionEvent = Schema<'SubscriptionEventDto'>;
export type ApiKey = Schema<'ApiKeyDto'>;
export type CreatedApiKey = Schema<'CreatedApiKeyDto'>;
export type ApiKeyUsage = Schema<'ApiKeyUsageDto'>;
/** `secret` is present only in the answer that created the configuration or rotated its secret. */
export type Webhook = Schema<'SavedWebhookDto'>;
/**
 * The generated type makes every field with a default required (openapi-typescript's default-non-nullable), but on
 * an update an omitted `events` or `enabled` means "keep": they stay optional here.
 */
type Defaulted = 'events' | 'enabled' | 'rotateSecret';
export type SaveWebhook = Omit<Schema<'SaveWebhookDto'>, Defaulted> &
  Partial<Pick<Schema<'SaveWebhookDto'>, Defaulted>>;
export type DeliveryResult = Schema<'DeliveryResultDto'>;
export type WebhookAttempt = Schema<'WebhookAttemptDto'>;
export type Plan = Schema<'PlanDto'>;
/** A plan a wallet may subscribe to (GET /plans), as opposed to `Plan`, the payment terms. */
export type PlanDetails = Schema<'PlanDetailsDto'>;
export type NewPlan = Schema<'CreatePlanDto'>;
export type PlanChanges = Schema<'UpdatePlanDto'>;
export type TollgateEvent = Schema<'EventDto'>;
export type EventType = TollgateEvent['type'];
export type WebhookEvent = NonNullable<Schema<'SaveWebhookDto'>['events']>[number];
/** A webhook can ask for each event type (the client checks the lists against each other). */
export const WEBHOOK_EVENTS: readonly Exclude<WebhookEvent, '*'>[] = EVENT_TYPES;
type EventQuery = NonNullable<operations['listEvents']['parameters']['query']>;

const client = createTollgateClient({ baseUrl: window.location.origin, credentials: 'same-origin' });

let sessionLost: ((error: TollgateError) => void) | undefined;

/** Called when a signed-in call answers 401: the session expired, was revoked, or the cookie is gone. */
export function onSessionLost(handler: (error: TollgateError) => void): void {
  sessionLost = handler;
}

/**
 * The body of a successful call, else a TollgateError with the API's `error` text (status 0 when no answer came).
 * Login calls pass `anonymous`: their 401 is a bad signature or no session yet, not a lost one.
 */
async function call<T, E>(
  pending: Promise<{ data?: T; error?: E; response: Response }>,
  anonymous = false,
): Promise<NonNullable<T>> {
  try {
    return await unwrap(pending);
  } catch (error) {
    if (!(error instanceof TollgateError) || error instanceof TollgateConnectionError) {
      throw new TollgateError(0, {
        error: 'Cannot reach the Tollgate service. Check the connection and try again.',
        details: { code: 'network_error' },
      });
    }
    if (error.status === 401 && !anonymous) sessionLost?.(error);
    throw error;
  }
}

const idempotency = (key: string) => ({ header: { 'Idempotency-Key': key } });

export const api = {
  requestNonce: (address: string) => call(client.POST('/auth/nonce', { body: { address } }), true),
  verify: (address: string, signature: string, message: string) =>
    call(client.POST('/auth/verify', { body: { address, signature, message } }), true),
  /** The signed-in wallet, or a 401 when there is no session (which is not reported as a lost session). */
  session: () => call(client.GET('/auth/session'), true),
  logout: () => call(client.POST('/auth/logout'), true),
  /** Ends every session of the wallet, this one included (a 401 afterwards is expected, not a lost session). */
  logoutEverywhere: (revokeKeys: boolean) =>
    call(client.POST('/auth/logout-all', { body: { revokeKeys } }), true),

  status: (address: string) => call(client.GET('/subscriptions/status', { params: { query: { address } } })),
  history: (address: string) =>
    call(client.GET('/subscriptions/history', { params: { query: { address } } })),
  /** How renewals are paid here (public): free, billed by the operator, or an ERC-20 transfer first. */
  plan: () => call(client.GET('/subscriptions/plan'), true),
  /**
   * `txHash`: the ERC-20 payment under the erc20 gateway. `plan`: the plan to subscribe to (no active subscription);
   * without it the subscription's current plan (or `default`) is renewed.
   */
  renew: (address: string, key: string, txHash?: string, plan?: string) =>
    call(
      client.POST('/subscriptions/renew', {
        params: idempotency(key),
        body: { address, ...(txHash ? { payment: { txHash } } : {}), ...(plan ? { plan } : {}) },
      }),
    ),
  /**
   * Moves an active subscription to `plan`: a dearer one (per second) at once, a cheaper one at the period's end
   * (`pendingPlan`); the current plan's id cancels a scheduled change. No payment: the time left is converted.
   */
  changePlan: (address: string, plan: string, key: string) =>
    call(
      client.POST('/subscriptions/change-plan', {
        params: idempotency(key),
        body: { address, plan },
      }),
    ),
  cancel: (address: string, immediate: boolean, key: string) =>
    call(client.POST('/subscriptions/cancel', { params: idempotency(key), body: { address, immediate } })),
  /**
   * Renews automatically at each period end: under `free` with `periods` (the service's default without), under
   * `erc20` with the mandate the payer signed and its signature.
   */
  enableAutoRenew: (address: string, body: { periods?: number } | { mandate: Mandate; signature: string }) =>
    call(client.POST('/subscriptions/auto-renew', { body: { address, ...body } })),
  disableAutoRenew: (address: string) =>
    call(client.POST('/subscriptions/auto-renew/disable', { body: { address } })),
  /** Tries a failed automatic charge at the service's next sweep round instead of its scheduled retry. */
  retryAutoRenew: (address: string) =>
    call(client.POST('/subscriptions/auto-renew/retry', { body: { address } })),

  /** The plans offered (public); with `archived`, archived ones too. */
  plans: (archived = false) =>
    call(client.GET('/plans', { params: { query: archived ? { archived: true } : {} } }), true),
  createPlan: (body: NewPlan) => call(client.POST('/plans', { body })),
  updatePlan: (id: string, body: PlanChanges) =>
    call(client.PATCH('/plans/{id}', { params: { path: { id } }, body })),
  archivePlan: (id: string) => call(client.POST('/plans/{id}/archive', { params: { path: { id } } })),

  listKeys: () => call(client.GET('/api-keys/list')),
  /** `expiresAt` (ISO 8601): when the key stops working; omitted, it never does. */
  createKey: (label: string, scopes: Scope[], expiresAt?: string) =>
    call(client.POST('/api-keys', { body: { label, scopes, expiresAt } })),
  /** Requests per UTC day over the last 30 days, newest first. */
  keyUsage: (id: string) => call(client.GET('/api-keys/{id}/usage', { params: { path: { id } } })),
  revokeKey: (id: string) => call(client.POST('/api-keys/revoke', { body: { id } })),

  listWebhooks: () => call(client.GET('/webhooks')),
  saveWebhook: (body: SaveWebhook) =>
    call(client.POST('/webhooks', { body: body as Schema<'SaveWebhookDto'> })),
  deleteWebhook: (id: string) => call(client.DELETE('/webhooks/{id}', { params: { path: { id } } })),
  testWebhook: (id: string) => call(client.POST('/webhooks/test', { body: { id } })),
  deliveries: (webhookId: string) =>
    call(client.GET('/webhooks/deliveries', { params: { query: { webhookId } } })),
  /** One page of events, newest first, and the cursor of the next page when there is one. */
  events: async (query: EventQuery) => {
    const pending = client.GET('/events', { params: { query } });
    const items = await call(pending);
    return { items, next: (await pending).response.headers.get('x-next-cursor') ?? undefined };
  },
  retryDelivery: (id: string) =>
    call(client.POST('/webhooks/deliveries/{id}/retry', { params: { path: { id } } })),
};
