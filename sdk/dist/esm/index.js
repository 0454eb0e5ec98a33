export { createTollgateClient, } from './client.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './transport.js';
export { apiKey, sessionToken, authorization, } from './credentials.js';
export { TollgateError, TollgateConnectionError, TollgateTimeoutError, isTollgateError, unwrap, } from './errors.js';
export { entitlement, entitlements } from './entitlements.js';
export { signIn, DEFAULT_SIGN_IN_CHAIN_ID, } from './sign-in.js';
export { SignInMessageError } from './siwe.js';
export { verifyWebhook, WebhookVerificationError, } from './webhooks.js';
export { SCOPES, EVENT_TYPES } from './values.js';
