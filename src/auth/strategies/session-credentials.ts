import { SESSION_COOKIE } from '../session-cookie.js';

/** The request a strategy reads. */
export interface CredentialRequest {
  headers: Record<string, string | string[] | undefined>;
  /** Parsed by @fastify/cookie (registered in src/app.ts). */
  cookies?: Record<string, string | undefined>;
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

/**
 * The token of an `Authorization: Bearer <token>` header, or null. Shared by every strategy that reads the header
 * (the API-key strategy included), so they agree on what a Bearer token is.
 */
export function bearerToken(request: CredentialRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  return BEARER.exec(header)?.[1] ?? null;
}

/**
 * The `tg_session` cookie's token, or null. When an Authorization header is present it alone decides, so the cookie
 * is then not read at all, even a valid one.
 */
export function sessionCookieToken(request: CredentialRequest): string | null {
  if (request.headers.authorization !== undefined) return null;
  return request.cookies?.[SESSION_COOKIE] || null;
}
