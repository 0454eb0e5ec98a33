import type { components } from './schema.js';
type Schemas = components['schemas'];
/** A delivered event, typed by its `type`: `switch (event.type)` narrows `event.data`. */
export type WebhookEvent = Schemas['SubscriptionRenewedEventDto'] | Schemas['SubscriptionCanceledEventDto'] | Schemas['SubscriptionExpiredEventDto'] | Schemas['ApiKeyCreatedEventDto'] | Schemas['ApiKeyRevokedEventDto'] | Schemas['WebhookTestEventDto'] | Schemas['SubscriptionExpiringEventDto'] | Schemas['SubscriptionTrialWillEndEventDto'] | Schemas['SubscriptionPaymentFailedEventDto'] | Schemas['SubscriptionRecoveredEventDto'];
/** An automatic charge failed (`past_due`): `data.reason`, `data.message`, `data.nextAttemptAt`, `data.graceEndsAt`. */
export type PaymentFailedEvent = Schemas['SubscriptionPaymentFailedEventDto'];
/** A charge succeeded after failures: the subscription is `active` again (after its `subscription.renewed`). */
export type RecoveredEvent = Schemas['SubscriptionRecoveredEventDto'];
export type WebhookEventType = WebhookEvent['type'];
export type WebhookVerificationCode = 'missing_headers' | 'invalid_secret' | 'invalid_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'invalid_signature' | 'invalid_body';
/** A delivery that must not be trusted; `code` says why. Answer it with a 4xx. */
export declare class WebhookVerificationError extends Error {
    readonly code: WebhookVerificationCode;
    readonly name = "WebhookVerificationError";
    constructor(code: WebhookVerificationCode, message: string);
}
/** Request headers as Node (`IncomingHttpHeaders`), Fetch (`Headers`) or a plain object present them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined> | Iterable<readonly [string, string]>;
export interface VerifyWebhookOptions {
    /** How far the `webhook-timestamp` may be from now, in seconds, either way. Default 300 (5 minutes). */
    toleranceSeconds?: number;
    /** The time to check against (tests). Default: now. */
    now?: Date;
}
/**
 * Checks a Tollgate delivery (Standard Webhooks 1.0) and returns its event. `secret` is the configuration's
 * `whsec_…` secret; `headers` the request's headers; `body` the raw request body, exactly as received (a parsed
 * and re-serialised object would not match its signature). Any one of several space-separated `v1,` signatures
 * may match (a secret rotation overlaps). Throws a WebhookVerificationError when the delivery must be refused.
 * Uses Web Crypto only: runs in Node 20+, browsers, Deno, Bun and edge runtimes.
 */
export declare function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array, options?: VerifyWebhookOptions): Promise<WebhookEvent>;
export {};
