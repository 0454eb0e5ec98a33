export { createTollgateClient } from './client.js';
export { apiKey, sessionToken, authorization, } from './credentials.js';
export { TollgateError, isTollgateError, unwrap } from './errors.js';
