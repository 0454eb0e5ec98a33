import { availableParallelism } from 'node:os';
import { ConfigValidationError, loadAppConfig } from './app-config.js';

describe('loadAppConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadAppConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      jwtTtlSeconds: 86_400,
      authDomain: 'localhost:3000',
      authUri: 'http://localhost:3000',
      authChainId: 1,
      authNonceTtlSeconds: 600,
      authRequireSiwe: false,
      chainRpcUrl: undefined,
      cookieSecure: true,
      corsOrigins: [],
      subscriptionPeriodSeconds: 2_592_000,
      webhookAllowHttp: false,
      webhookAllowPrivate: false,
      rateLimitPerMinute: undefined,
    });
    expect(config.operatorAddresses.size).toBe(0);
    expect(config.authVerifyThreads).toBe(Math.min(availableParallelism(), 4));
  });

  it('parses typed values', () => {
    const config = loadAppConfig({
      PORT: '8080',
      COOKIE_SECURE: 'false',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
      OPERATOR_ADDRESSES: '0x52908400098527886E0F7030069857D2E4169EE7',
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
    });
    expect(config.port).toBe(8080);
    expect(config.cookieSecure).toBe(false);
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect([...config.operatorAddresses]).toEqual(['0x52908400098527886e0f7030069857d2e4169ee7']);
    expect(loadAppConfig({ AUTH_VERIFY_THREADS: '0' }).authVerifyThreads).toBe(0);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadAppConfig({
        PORT: 'eighty',
        JWT_SECRET: 'short',
        COOKIE_SECURE: 'maybe',
        DATABASE_URL: 'mysql://x',
        OPERATOR_ADDRESSES: '0x123',
        AUTH_VERIFY_THREADS: '-1',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const message = (error as Error).message;
    for (const name of [
      'PORT',
      'JWT_SECRET',
      'COOKIE_SECURE',
      'DATABASE_URL',
      'OPERATOR_ADDRESSES',
      'AUTH_VERIFY_THREADS',
    ]) {
      expect(message).toContain(name);
    }
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadAppConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).jwtSecret).toHaveLength(32);
  });
});
