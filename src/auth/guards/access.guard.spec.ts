import { strategyFor } from './access.guard.js';
import type { CredentialRequest } from '../strategies/session-credentials.js';

/** A request as Fastify hands it over, its cookies parsed by @fastify/cookie. */
const request = (
  headers: Record<string, string>,
  cookies: Record<string, string> = {},
): CredentialRequest => ({
  headers,
  cookies,
});

describe('strategyFor', () => {
  it('picks the strategy of the credential presented', () => {
    expect(strategyFor(request({ authorization: 'Bearer tg_abc' }))).toBe('api-key');
    expect(strategyFor(request({ authorization: 'Bearer something-else' }))).toBe('api-key');
    expect(strategyFor(request({ authorization: 'bearer eyJ.a.b' }))).toBe('jwt');
    expect(strategyFor(request({}, { a: '1', tg_session: 'eyJ.a.b' }))).toBe('session-cookie');
  });

  it('lets the Authorization header alone decide when it is sent', () => {
    expect(strategyFor(request({ authorization: 'Bearer eyJ.a.b' }, { tg_session: 'eyJ.c.d' }))).toBe('jwt');
    expect(strategyFor(request({ authorization: 'Basic dXNlcjpwdw==' }, { tg_session: 'eyJ.c.d' }))).toBe(
      null,
    );
  });

  it('finds nothing to read without a credential', () => {
    expect(strategyFor(request({}))).toBe(null);
    expect(strategyFor(request({}, { tg_session: '' }))).toBe(null);
    expect(strategyFor(request({ authorization: 'Bearer' }))).toBe(null);
  });
});
