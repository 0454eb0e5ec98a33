import jwt from 'jsonwebtoken';
import { loadAppConfig } from '../config/app-config.js';
import { JWT_AUDIENCE, JWT_ISSUER, SessionTokenService } from './session-token.service.js';

describe('SessionTokenService', () => {
  const config = loadAppConfig({
    NODE_ENV: 'test',
    DATABASE_URL: 'postgres://unused@127.0.0.1/unused',
    JWT_SECRET: 'a-test-secret-of-at-least-thirty-two-characters',
  });
  const tokens = new SessionTokenService(config);

  it('issues an HS256 JWT that jsonwebtoken verifies with the pinned algorithm, issuer and audience', () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    const issued = tokens.issue('0x52908400098527886E0F7030069857D2E4169EE7', now);
    const [header] = issued.token.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = jwt.verify(issued.token, tokens.key, {
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      clockTimestamp: now.getTime() / 1000,
    }) as jwt.JwtPayload;
    expect(claims).toEqual({
      sub: '0x52908400098527886E0F7030069857D2E4169EE7',
      iat: now.getTime() / 1000,
      exp: now.getTime() / 1000 + config.jwtTtlSeconds,
      jti: issued.jti,
      iss: JWT_ISSUER,
      aud: JWT_AUDIENCE,
    });
    expect(issued.expiresAt.getTime()).toBe(claims.exp! * 1000);
  });

  it('dates a token issued in the second of a "sign out everywhere" at the next second, and others as issued', () => {
    const now = new Date('2030-01-01T00:00:00.700Z');
    const decode = (token: string) => jwt.decode(token) as jwt.JwtPayload;
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    const cutoffSeconds = Math.floor(now.getTime() / 1000) + 1;
    const afterCutoff = tokens.issue(address, now, cutoffSeconds);
    expect(decode(afterCutoff.token).iat).toBe(cutoffSeconds);
    expect(afterCutoff.expiresAt.getTime()).toBe((cutoffSeconds + config.jwtTtlSeconds) * 1000);
    expect(decode(tokens.issue(address, now, cutoffSeconds - 60).token).iat).toBe(cutoffSeconds - 1);
  });

  it('issues tokens another secret does not verify', () => {
    const other = new SessionTokenService({
      ...config,
      jwtSecret: 'another-secret-of-at-least-thirty-two-chars',
    });
    expect(() =>
      jwt.verify(other.issue('0x52908400098527886E0F7030069857D2E4169EE7').token, tokens.key),
    ).toThrow('invalid signature');
  });
});
