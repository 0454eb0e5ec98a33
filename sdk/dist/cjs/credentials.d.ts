/**
 * What a request presents to the API. Both kinds travel in `Authorization: Bearer`; keeping them apart lets a
 * caller tell an integrator's key from a wallet session (which expires) without parsing the string.
 */
export type Credential = ApiKeyCredential | SessionCredential;
export interface ApiKeyCredential {
    readonly kind: 'api_key';
    readonly key: string;
}
export interface SessionCredential {
    readonly kind: 'session';
    readonly token: string;
    /** When the session ends, as POST /auth/verify answered it; unknown when the token came from elsewhere. */
    readonly expiresAt?: Date;
}
/** An API key (`tg_…`) from POST /api-keys, for server-side use only. */
export declare function apiKey(key: string): ApiKeyCredential;
/** A session JWT from POST /auth/verify (see signIn). */
export declare function sessionToken(token: string, expiresAt?: string | Date): SessionCredential;
/** The `Authorization` header value of a credential. */
export declare function authorization(credential: Credential): string;
