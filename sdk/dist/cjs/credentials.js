"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.apiKey = apiKey;
exports.sessionToken = sessionToken;
exports.authorization = authorization;
const API_KEY = /^tg_[0-9A-Za-z]{38}$/;
/** An API key (`tg_…`) from POST /api-keys, for server-side use only. */
function apiKey(key) {
    // A key pasted with a newline or the wrong variable is refused here, not as a 401 from the service.
    if (!API_KEY.test(key))
        throw new TypeError('apiKey: expected `tg_` followed by 38 base62 characters');
    return { kind: 'api_key', key };
}
/** A session JWT from POST /auth/verify (see signIn). */
function sessionToken(token, expiresAt) {
    if (token.length === 0 || /\s/.test(token))
        throw new TypeError('sessionToken: expected a JWT');
    return { kind: 'session', token, expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt) };
}
/** The `Authorization` header value of a credential. */
function authorization(credential) {
    return `Bearer ${credential.kind === 'api_key' ? credential.key : credential.token}`;
}
