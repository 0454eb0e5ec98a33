/** Name of the HTTP-only session cookie set by POST /auth/verify (CONTRACT.md section 2). */
export const SESSION_COOKIE = 'tg_session';
