import type { components } from './schema.js';

type Schemas = components['schemas'];

/** A delivered event, typed by its `type`: `switch (event.type)` narrows `event.data`. */
export type WebhookEvent =
  | Schemas['SubscriptionRenewedEventDto']
  | Schemas['SubscriptionCanceledEventDto']
  | Schemas['SubscriptionExpiredEventDto']
  | Schemas['ApiKeyCreatedEventDto']
  | Schemas['ApiKeyRevokedEventDto']
  | Schemas['WebhookTestEventDto']
  | Schemas['SubscriptionExpiringEventDto']
  | Schemas['SubscriptionTrialWillEndEventDto']
  | Schemas['SubscriptionPaymentFailedEventDto']
  | Schemas['SubscriptionRecoveredEventDto'];

/** An automatic charge failed (`past_due`): `data.reason`, `data.message`, `data.nextAttemptAt`, `data.graceEndsAt`. */
export type PaymentFailedEvent = Schemas['SubscriptionPaymentFailedEventDto'];
/** A charge succeeded after failures: the subscription is `active` again (after its `subscription.renewed`). */
export type RecoveredEvent = Schemas['SubscriptionRecoveredEventDto'];

export type WebhookEventType = WebhookEvent['type'];

export type WebhookVerificationCode =
  | 'missing_headers'
  | 'invalid_secret'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_body';

/** A delivery that must not be trusted; `code` says why. Answer it with a 4xx. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

/** Request headers as Node (`IncomingHttpHeaders`), Fetch (`Headers`) or a plain object present them. */
export type WebhookHeaders =
  Headers | Record<string, string | readonly string[] | undefined> | Iterable<readonly [string, string]>;

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, in seconds, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The time to check against (tests). Default: now. */
  now?: Date;
}

const SECRET_PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entries =
    Symbol.iterator in headers
      ? [...(headers as Iterable<readonly [string, string]>)]
      : Object.entries(headers as Record<string, string | readonly string[] | undefined>);
  for (const [key, value] of entries) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(' ');
  }
  return undefined;
}

function base64ToBytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Whether two byte strings are equal, in a time that depends only on their lengths. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await globalThis.crypto.subtle.importKey(
    'raw',
    key as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(
    await globalThis.crypto.subtle.sign('HMAC', cryptoKey, data as Uint8Array<ArrayBuffer>),
  );
}

/**
 * Checks a Tollgate delivery (Standard Webhooks 1.0) and returns its event. `secret` is the configuration's
 * `whsec_…` secret; `headers` the request's headers; `body` the raw request body, exactly as received (a parsed
 * and re-serialised object would not match its signature). Any one of several space-separated `v1,` signatures
 * may match (a secret rotation overlaps). Throws a WebhookVerificationError when the delivery must be refused.
 * Uses Web Crypto only: runs in Node 20+, browsers, Deno, Bun and edge runtimes.
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing_headers',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  }
  const key = base64ToBytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (key === undefined || key.length === 0) {
    throw new WebhookVerificationError('invalid_secret', 'the secret is not `whsec_` followed by base64');
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not unix seconds');
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Number(timestamp) < now - tolerance) {
    throw new WebhookVerificationError('timestamp_too_old', 'webhook-timestamp is too old');
  }
  if (Number(timestamp) > now + tolerance) {
    throw new WebhookVerificationError('timestamp_too_new', 'webhook-timestamp is in the future');
  }

  const bodyBytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);
  const expected = await hmacSha256(key, signed);

  let matched = false;
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const candidate = base64ToBytes(value);
    // Every entry is compared, so the time taken does not say which one matched.
    if (candidate !== undefined && constantTimeEqual(candidate, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('invalid_signature', 'no signature matches');

  try {
    const event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bodyBytes)) as WebhookEvent;
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') throw new TypeError();
    return event;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the signed body is not a webhook event');
  }
}
