export {
  createTollgateClient,
  type TollgateClient,
  type TollgateClientOptions,
  type CallOptions,
  type PagedPath,
  type PageItem,
  type PageOptions,
} from './client.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type RequestSettings } from './transport.js';
export {
  apiKey,
  sessionToken,
  authorization,
  type Credential,
  type ApiKeyCredential,
  type SessionCredential,
} from './credentials.js';
export {
  TollgateError,
  TollgateConnectionError,
  TollgateTimeoutError,
  isTollgateError,
  unwrap,
  type ErrorBody,
  type ErrorCode,
  type ClientErrorCode,
} from './errors.js';
export { entitlement, entitlements, type Entitlement, type EntitlementList } from './entitlements.js';
export { changePlan, type ChangePlanOptions } from './change-plan.js';
export {
  enableAutoRenew,
  disableAutoRenew,
  retryAutoRenew,
  autoRenewStatus,
  prepareAutoRenew,
  registerAutoRenew,
  signMandate,
  buildMandate,
  mandateTypedData,
  MANDATE_TYPES,
  MAX_MANDATE_PERIODS,
  DEFAULT_MANDATE_PERIODS,
  type AutoRenewTerms,
  type AutoRenewOptions,
  type AutoRenewStatus,
  type EnableAutoRenewOptions,
  type PrepareAutoRenewOptions,
  type PreparedAutoRenew,
  type Mandate,
  type MandateInput,
  type MandateTypedData,
  type SignableMandate,
  type TypedDataSigner,
} from './auto-renew.js';
export {
  signIn,
  DEFAULT_SIGN_IN_CHAIN_ID,
  type SignedIn,
  type SignInOptions,
  type MessageSigner,
  type Eip1193Provider,
} from './sign-in.js';
export { SignInMessageError, type SignInMessageCode } from './siwe.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventType,
  type PaymentFailedEvent,
  type RecoveredEvent,
  type WebhookHeaders,
  type WebhookVerificationCode,
  type VerifyWebhookOptions,
} from './webhooks.js';
export type { paths, components, operations } from './schema.js';
export { SCOPES, EVENT_TYPES } from './values.js';

import type { components } from './schema.js';
/** A schema of the API by name, e.g. `Schema<'SubscriptionDto'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
