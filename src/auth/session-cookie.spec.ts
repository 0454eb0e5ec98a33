import { clearedSessionCookie, readCookie, sessionCookie } from './session-cookie.js';

describe('session cookie', () => {
  it('reads one cookie among others', () => {
    expect(readCookie('a=1; tg_session=abc.def.ghi; b=2', 'tg_session')).toBe('abc.def.ghi');
    expect(readCookie('tg_session="quoted"', 'tg_session')).toBe('quoted');
    expect(readCookie('tg_sessionx=1', 'tg_session')).toBeUndefined();
    expect(readCookie(undefined, 'tg_session')).toBeUndefined();
  });

  it('sets the contract attributes', () => {
    expect(sessionCookie('t', { secure: true, maxAgeSeconds: 86400 })).toBe(
      'tg_session=t; HttpOnly; SameSite=Lax; Path=/; Max-Age=86400; Secure',
    );
    expect(sessionCookie('t', { secure: false, maxAgeSeconds: 10 })).not.toContain('Secure');
    expect(clearedSessionCookie(false)).toContain('Max-Age=0');
  });
});
