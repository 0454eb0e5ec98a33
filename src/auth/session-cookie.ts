import type { CookieSerializeOptions } from '@fastify/cookie';

/** Name of the HTTP-only session cookie set by POST /auth/verify. */
export const SESSION_COOKIE = 'tg_session';

/** `HttpOnly; SameSite=Lax; Path=/; Max-Age=<seconds to exp>` and `Secure` unless COOKIE_SECURE=false. */
export function sessionCookieOptions(secure: boolean, maxAgeSeconds: number): CookieSerializeOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', maxAge: maxAgeSeconds, secure };
}
