/**
 * Every call the dashboard makes to the Tollgate API, in one module: the rest of the app never builds a request.
 * Same origin, session cookie (HttpOnly, set by POST /auth/verify); the browser adds the Origin header that the
 * service's CSRF check wants on cookie-authenticated POSTs.
 */

export type Scope = 'READ_ONLY' | 'SUBSCRIPTIONS_MANAGE' | 'FULL';
export const SCOPES: readonly Scope[] = ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'];

export type WebhookEvent =
  | '*'
  | 'subscription.renewed'
  | 'subscription.canceled'
  | 'subscription.expired'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'webhook.test';
export const WEBHOOK_EVENTS: readonly Exclude<WebhookEvent, '*'>[] = [
  'subscription.renewed',
  'subscription.canceled',
  'subscription.expired',
  'api_key.created',
  'api_key.revoked',
  'webhook.test',
];

export interface Session {
  address: string;
  via: 'jwt' | 'api_key';
  scopes: Scope[];
  operator: boolean;
  expiresAt: string | null;
}

export interface Nonce {
  nonce: string;
  message: string;
  issuedAt: string;
  expiresAt: string;
}

export interface Subscription {
  address: string;
  status: 'none' | 'active' | 'canceled' | 'expired';
  active: boolean;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export interface SubscriptionEvent {
  id: string;
  type: string;
  at: string;
  actor: string;
  previousPeriodEnd: string | null;
  currentPeriodEnd: string;
}

export interface ApiKey {
  id: string;
  label: string;
  scopes: Scope[];
  prefix: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
  revokedAt: string | null;
}

export interface CreatedApiKey {
  id: string;
  key: string;
  label: string;
  scopes: Scope[];
  prefix: string;
  createdAt: string;
}

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  description: string | null;
  createdAt: string;
  updatedAt: string;
  secretPrefix: string;
  failingSince: string | null;
  disabledReason: 'gone' | 'failing' | null;
  /** Only in the answer that created the configuration or rotated its secret. */
  secret?: string;
}

export interface SaveWebhook {
  id?: string;
  url: string;
  events?: WebhookEvent[];
  enabled?: boolean;
  description?: string | null;
  rotateSecret?: boolean;
}

export interface DeliveryResult {
  deliveryId: string;
  webhookId: string;
  url: string;
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  status: 'pending' | 'succeeded' | 'failed';
}

export interface WebhookAttempt {
  id: string;
  deliveryId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attemptedAt: string;
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  deliveryStatus: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: string | null;
}

/** An answer that was not a success, carrying the API's own `error` text and `details.code`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let sessionLost: ((error: ApiError) => void) | undefined;

/** Called when a signed-in call answers 401: the session expired, was revoked, or the cookie is gone. */
export function onSessionLost(handler: (error: ApiError) => void): void {
  sessionLost = handler;
}

interface CallOptions {
  body?: unknown;
  idempotencyKey?: string;
  /** Login calls answer 401 for a bad signature, which is not a lost session. */
  anonymous?: boolean;
}

async function call<T>(method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'Cannot reach the Tollgate service. Check the connection and try again.',
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed as T;
  const body = (parsed ?? {}) as { error?: unknown; details?: { code?: unknown } };
  const error = new ApiError(
    response.status,
    typeof body.details?.code === 'string' ? body.details.code : `http_${response.status}`,
    typeof body.error === 'string'
      ? body.error
      : `The service answered ${response.status} ${response.statusText}`,
  );
  if (response.status === 401 && !options.anonymous) sessionLost?.(error);
  throw error;
}

const query = (address: string) => `?address=${encodeURIComponent(address)}`;

export const api = {
  requestNonce: (address: string) =>
    call<Nonce>('POST', '/auth/nonce', { body: { address }, anonymous: true }),
  verify: (address: string, signature: string, message: string) =>
    call<{ token: string; expiresAt: string }>('POST', '/auth/verify', {
      body: { address, signature, message },
      anonymous: true,
    }),
  /** The signed-in wallet, or a 401 ApiError when there is no session (not reported as a lost session). */
  session: () => call<Session>('GET', '/auth/session', { anonymous: true }),
  logout: () => call<{ revoked: boolean }>('POST', '/auth/logout', { anonymous: true }),

  status: (address: string) => call<Subscription>('GET', `/subscriptions/status${query(address)}`),
  history: (address: string) => call<SubscriptionEvent[]>('GET', `/subscriptions/history${query(address)}`),
  renew: (address: string, idempotencyKey: string) =>
    call<Subscription>('POST', '/subscriptions/renew', { body: { address }, idempotencyKey }),
  cancel: (address: string, immediate: boolean, idempotencyKey: string) =>
    call<Subscription>('POST', '/subscriptions/cancel', { body: { address, immediate }, idempotencyKey }),

  listKeys: () => call<ApiKey[]>('GET', '/api-keys/list'),
  createKey: (label: string, scopes: Scope[]) =>
    call<CreatedApiKey>('POST', '/api-keys', { body: { label, scopes } }),
  revokeKey: (id: string) =>
    call<{ id: string; revoked: boolean; revokedAt: string }>('POST', '/api-keys/revoke', { body: { id } }),

  listWebhooks: () => call<Webhook[]>('GET', '/webhooks'),
  saveWebhook: (body: SaveWebhook) => call<Webhook>('POST', '/webhooks', { body }),
  testWebhook: (id: string) =>
    call<{ deliveries: DeliveryResult[] }>('POST', '/webhooks/test', { body: { id } }),
  deliveries: (webhookId: string) =>
    call<WebhookAttempt[]>('GET', `/webhooks/deliveries?webhookId=${encodeURIComponent(webhookId)}`),
  retryDelivery: (deliveryId: string) =>
    call<DeliveryResult>('POST', `/webhooks/deliveries/${encodeURIComponent(deliveryId)}/retry`),
};
