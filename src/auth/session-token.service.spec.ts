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
    const issued = tokens.issue('0x52908400098527886E0F7030069857D2E4169EE7', 3, now);
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
      gen: 3,
    });
    expect(issued.expiresAt.getTime()).toBe(claims.exp! * 1000);
  });

  it('issues tokens another secret does not verify', () => {
    const other = new SessionTokenService({
      ...config,
      jwtSecret: 'another-secret-of-at-least-thirty-two-chars',
    });
    expect(() =>
      jwt.verify(other.issue('0x52908400098527886E0F7030069857D2E4169EE7', 0).token, tokens.key),
    ).toThrow('invalid signature');
  });
});
