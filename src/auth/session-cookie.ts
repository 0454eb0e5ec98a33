/** Name of the HTTP-only session cookie set by POST /auth/verify (CONTRACT.md section 2). */
export const SESSION_COOKIE = 'tg_session';

/** Reads one cookie from a Cookie header without decoding the others. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
    }
  }
  return undefined;
}

export interface SessionCookieOptions {
  secure: boolean;
  maxAgeSeconds: number;
}

/** `tg_session=<jwt>; HttpOnly; SameSite=Lax; Path=/; Max-Age=<seconds to exp>` and `Secure` unless disabled. */
export function sessionCookie(token: string, { secure, maxAgeSeconds }: SessionCookieOptions): string {
  const parts = [
    `${SESSION_COOKIE}=${token}`,
    'HttpOnly',
    'SameSite=Lax',
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/** Expires the session cookie in the browser (logout). */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { secure, maxAgeSeconds: 0 });
}
