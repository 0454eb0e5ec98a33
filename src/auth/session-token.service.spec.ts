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

  it('issues tokens another secret does not verify', () => {
    const other = new SessionTokenService({
      ...config,
      jwtSecret: 'another-secret-of-at-least-thirty-two-chars',
    });
    expect(() =>
      jwt.verify(other.issue('0x52908400098527886E0F7030069857D2E4169EE7').token, tokens.key),
    ).toThrow('invalid signature');
  });

  describe('verify', () => {
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    const issuedAt = new Date('2030-01-01T00:00:00.000Z');
    const expiry = issuedAt.getTime() + config.jwtTtlSeconds * 1000;
    const code = (run: () => unknown): string | undefined => {
      try {
        run();
        return undefined;
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };

    it('returns the claims of a token it issued, again from its cache on a repeat', () => {
      const { token, jti } = tokens.issue(address, issuedAt);
      const first = tokens.verify(token, issuedAt.getTime() + 1000);
      expect(first).toMatchObject({ sub: address, jti, iss: JWT_ISSUER, aud: JWT_AUDIENCE });
      expect(tokens.verify(token, issuedAt.getTime() + 2000)).toBe(first);
    });

    it('refuses an expired token, also one it verified while it was valid', () => {
      const { token } = tokens.issue(address, issuedAt);
      expect(tokens.verify(token, expiry - 1000).exp * 1000).toBe(expiry);
      expect(code(() => tokens.verify(token, expiry))).toBe('token_expired');
      const fresh = new SessionTokenService(config);
      expect(code(() => fresh.verify(token, expiry + 5000))).toBe('token_expired');
    });

    it('refuses a token signed with another secret or altered, before and after a valid one is cached', () => {
      const { token } = tokens.issue(address, issuedAt);
      tokens.verify(token, issuedAt.getTime());
      const other = new SessionTokenService({
        ...config,
        jwtSecret: 'another-secret-of-at-least-thirty-two-chars',
      });
      const foreign = other.issue(address, issuedAt).token;
      expect(code(() => tokens.verify(foreign, issuedAt.getTime()))).toBe('invalid_token');
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
      const altered = Buffer.from(JSON.stringify({ ...claims, sub: '0x' + '1'.repeat(40) })).toString(
        'base64url',
      );
      expect(code(() => tokens.verify(`${header}.${altered}.${signature}`, issuedAt.getTime()))).toBe(
        'invalid_token',
      );
      expect(code(() => tokens.verify(`${header}.${payload}.`, issuedAt.getTime()))).toBe('invalid_token');
    });

    it('refuses a token of another algorithm, issuer or audience', () => {
      const now = Math.floor(issuedAt.getTime() / 1000);
      const claims = { sub: address, iat: now, exp: now + 60, jti: 'j' };
      const signed = (options: jwt.SignOptions): string =>
        jwt.sign(claims, tokens.key, {
          algorithm: 'HS256',
          issuer: JWT_ISSUER,
          audience: JWT_AUDIENCE,
          ...options,
        });
      expect(tokens.verify(signed({}), issuedAt.getTime()).jti).toBe('j');
      expect(code(() => tokens.verify(signed({ algorithm: 'HS512' }), issuedAt.getTime()))).toBe(
        'invalid_token',
      );
      expect(code(() => tokens.verify(signed({ issuer: 'someone' }), issuedAt.getTime()))).toBe(
        'invalid_token',
      );
      expect(code(() => tokens.verify(signed({ audience: 'other' }), issuedAt.getTime()))).toBe(
        'invalid_token',
      );
    });
  });
});
