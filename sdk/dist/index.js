export { createTollgateClient } from './client.js';
export { apiKey, sessionToken, authorization, } from './credentials.js';
export { TollgateError, isTollgateError, unwrap } from './errors.js';
export { signIn, } from './sign-in.js';
export { verifyWebhook, WebhookVerificationError, } from './webhooks.js';
