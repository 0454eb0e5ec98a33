export { createTollgateClient, type TollgateClient, type TollgateClientOptions } from './client.js';
export { apiKey, sessionToken, authorization, type Credential, type ApiKeyCredential, type SessionCredential, } from './credentials.js';
export { TollgateError, isTollgateError, unwrap, type ErrorBody } from './errors.js';
export type { paths, components, operations } from './schema.js';
import type { components } from './schema.js';
/** A schema of the API by name, e.g. `Schema<'SubscriptionDto'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
