import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configAdvisories, ConfigValidationError, loadAppConfig } from './app-config.js';
import {
  renderConfigTable,
  renderEnvExample,
  TABLE_END,
  TABLE_START,
  withConfigTable,
} from './config-table.js';
import { integer, setting } from './setting.js';
import { erc20PaymentSettings, keeperKeyOf, paymentGatewayOf, SETTINGS } from './settings.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadAppConfig(env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadAppConfig', () => {
  it('derives the sign-in domain and URI from PORT outside production when they are unset', () => {
    expect(loadAppConfig({ PORT: '4100' })).toMatchObject({
      authDomain: 'localhost:4100',
      authUri: 'http://localhost:4100',
    });
    expect(loadAppConfig({ PORT: '4100', NODE_ENV: 'test' }).authDomain).toBe('localhost:4100');
    const set = loadAppConfig({
      PORT: '4100',
      AUTH_DOMAIN: 'app.example.com',
      AUTH_URI: 'https://app.example.com',
    });
    expect(set).toMatchObject({ authDomain: 'app.example.com', authUri: 'https://app.example.com' });
    const production = loadAppConfig({
      PORT: '4100',
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(48).toString('base64'),
      PAYMENT_GATEWAY: 'free',
    });
    expect(production).toMatchObject({ authDomain: 'localhost:3000', authUri: 'http://localhost:3000' });
  });

  it('applies the documented defaults', () => {
    const config = loadAppConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      dataDir: resolve('./.data'),
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
      workersEnabled: true,
      rateLimitPerMinute: undefined,
      nodeEnv: 'development',
      httpRequestTimeoutMs: 30_000,
      httpHeadersTimeoutMs: 10_000,
      httpIdleTimeoutMs: 5_000,
      httpKeepAliveTimeoutMs: 72_000,
    });
    expect(config.operatorAddresses.size).toBe(0);
    expect(config.authVerifyThreads).toBe(Math.min(availableParallelism(), 4));
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses typed values', () => {
    const config = loadAppConfig({
      PORT: '8080',
      COOKIE_SECURE: 'false',
      WEBHOOK_WORKERS: 'no',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
      OPERATOR_ADDRESSES: '0x52908400098527886E0F7030069857D2E4169EE7',
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
      DATA_DIR: 'var/tollgate',
    });
    expect(config.port).toBe(8080);
    expect(config.cookieSecure).toBe(false);
    expect(config.workersEnabled).toBe(false);
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect([...config.operatorAddresses]).toEqual(['0x52908400098527886e0f7030069857d2e4169ee7']);
    expect(config.dataDir).toBe(resolve('var/tollgate'));
    expect(loadAppConfig({ AUTH_VERIFY_THREADS: '0' }).authVerifyThreads).toBe(0);
  });

  it('reads an empty number, boolean or text as unset, but not an empty choice', () => {
    const config = loadAppConfig({ PORT: '', COOKIE_SECURE: '', HOST: '', CHAIN_RPC_URL: '' });
    expect(config).toMatchObject({ port: 3000, cookieSecure: true, host: '0.0.0.0', chainRpcUrl: undefined });
    expect(problemsOf({ LOG_LEVEL: '' })).toEqual([
      'LOG_LEVEL must be one of the following values: fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it('names every bad variable in one error', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      JWT_SECRET: 'short',
      COOKIE_SECURE: 'maybe',
      DATABASE_URL: 'mysql://x',
      OPERATOR_ADDRESSES: '0x123, 0x52908400098527886E0F7030069857D2E4169EE7',
      AUTH_VERIFY_THREADS: '-1',
      CORS_ORIGINS: 'https://ok.example, ftp://x',
      CHAIN_RPC_URL: 'ws://node',
    });
    expect(problems).toEqual([
      'PORT must be an integer number',
      'DATABASE_URL must be a postgres:// connection URL',
      'JWT_SECRET must be at least 32 bytes long',
      'CHAIN_RPC_URL must be a URL address',
      'AUTH_VERIFY_THREADS must not be less than 0',
      'COOKIE_SECURE must be a boolean value',
      'CORS_ORIGINS: not origins (scheme://host[:port]): ftp://x',
      'OPERATOR_ADDRESSES: not wallet addresses: 0x123',
    ]);
  });

  it('reads TRUST_PROXY as a boolean or a list of proxy addresses and ranges', () => {
    expect(loadAppConfig({}).trustProxy).toBe(false);
    expect(loadAppConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadAppConfig({ TRUST_PROXY: '10.0.0.0/8, ::1, loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      'loopback',
    ]);
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33, proxy.internal, 1.2.3.4/8/1' })).toEqual([
      'TRUST_PROXY: not addresses or CIDR ranges: 10.0.0.0/33, proxy.internal, 1.2.3.4/8/1',
    ]);
  });

  it('refuses an AUTH_DOMAIN a sign-in message cannot carry: a single-label host or an IPv6 address', () => {
    for (const domain of [
      'app.example.com',
      'pay.example.org:8443',
      '127.0.0.1:3000',
      'localhost',
      'localhost:4100',
    ]) {
      expect(problemsOf({ AUTH_DOMAIN: domain })).toEqual([]);
    }
    for (const domain of [
      'tollgate:3000',
      'tollgate',
      '[::1]:3000',
      'app.example.com/login',
      'app.example.com:port',
    ]) {
      expect(problemsOf({ AUTH_DOMAIN: domain })).toEqual([
        'AUTH_DOMAIN must be a DNS name with a dot (app.example.com), an IPv4 address or localhost, with an optional ' +
          'port: sign-in messages cannot carry a single-label host (tollgate:3000) or an IPv6 address',
      ]);
    }
  });

  it('checks bounds on both sides', () => {
    expect(problemsOf({ PORT: '65536', DATABASE_POOL_SIZE: '0' })).toEqual([
      'PORT must not be greater than 65535',
      'DATABASE_POOL_SIZE must not be less than 1',
    ]);
  });

  it('requires JWT_SECRET and PAYMENT_GATEWAY in production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'JWT_SECRET: required when NODE_ENV=production (at least 32 bytes)',
      'PAYMENT_GATEWAY: required when NODE_ENV=production (free, operator or erc20; see docs/payments.md)',
    ]);
    const strong = randomBytes(32).toString('base64url');
    const production = { NODE_ENV: 'production', JWT_SECRET: strong };
    expect(problemsOf({ ...production, PAYMENT_GATEWAY: '' })).toEqual([
      'PAYMENT_GATEWAY: required when NODE_ENV=production (free, operator or erc20; see docs/payments.md)',
    ]);
    const config = loadAppConfig({ ...production, PAYMENT_GATEWAY: 'free' });
    expect(config.jwtSecret).toBe(strong);
    expect(paymentGatewayOf(config)).toBe('free');
    expect(paymentGatewayOf(loadAppConfig({ ...production, PAYMENT_GATEWAY: 'operator' }))).toBe('operator');
  });

  it.each([
    ['the compose file placeholder', 'CHANGE-ME-placeholder-jwt-secret-not-for-real-use'],
    ['a placeholder in other words', `changeme-${randomBytes(32).toString('hex')}`],
    ['one repeated character', 'x'.repeat(64)],
    ['a short cycle', 'abcd'.repeat(12)],
    ['a low-entropy phrase', 'aaaaaaaabbbbbbbbaaaaaaaabbbbbbbb'],
  ])('refuses %s as a production JWT_SECRET, and accepts it outside production', (_label, secret) => {
    expect(() => loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: secret })).toThrow(/JWT_SECRET: /);
    expect(loadAppConfig({ NODE_ENV: 'development', JWT_SECRET: secret }).jwtSecret).toBe(secret);
  });

  it('refuses a headers timeout longer than the whole request may take', () => {
    expect(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' })).toEqual([
      'HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS',
    ]);
  });

  it('refuses acknowledged cache coherence behind a transaction pooler unless a session URL leads past it', () => {
    const pooled = { DATABASE_POOLER: 'transaction', CACHE_COHERENCE: 'acknowledged' };
    expect(problemsOf(pooled)).toEqual([
      'CACHE_COHERENCE=acknowledged: needs a session connection past the transaction pooler; set DATABASE_SESSION_URL to PostgreSQL itself',
    ]);
    expect(problemsOf({ ...pooled, DATABASE_SESSION_URL: 'postgres://127.0.0.1:5432/test' })).toEqual([]);
    expect(problemsOf({ CACHE_COHERENCE: 'acknowledged' })).toEqual([]);
  });

  it('defaults to acknowledged cache coherence in production where a session can be opened, else to the barrier', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      PAYMENT_GATEWAY: 'operator',
    };
    expect(loadAppConfig({}).cacheCoherence).toBe('barrier');
    expect(loadAppConfig(production).cacheCoherence).toBe('acknowledged');
    expect(loadAppConfig({ ...production, DATABASE_POOLER: 'transaction' }).cacheCoherence).toBe('barrier');
    expect(
      loadAppConfig({
        ...production,
        DATABASE_POOLER: 'transaction',
        DATABASE_SESSION_URL: 'postgres://127.0.0.1:5432/test',
      }).cacheCoherence,
    ).toBe('acknowledged');
    expect(loadAppConfig({ ...production, CACHE_COHERENCE: 'barrier' }).cacheCoherence).toBe('barrier');
  });

  it('warns in production while AUTH_REQUIRE_SIWE is false, and nowhere else', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      PAYMENT_GATEWAY: 'operator',
    };
    expect(configAdvisories(loadAppConfig(production))).toEqual([
      expect.stringMatching(/^AUTH_REQUIRE_SIWE=false: .*set AUTH_REQUIRE_SIWE=true/),
    ]);
    expect(configAdvisories(loadAppConfig({ ...production, AUTH_REQUIRE_SIWE: 'true' }))).toEqual([]);
    expect(configAdvisories(loadAppConfig({}))).toEqual([]);
  });

  it('defaults PAYMENT_GATEWAY to free outside production, and knows no other gateway', () => {
    expect(paymentGatewayOf(loadAppConfig({}))).toBe('free');
    expect(paymentGatewayOf(loadAppConfig({ NODE_ENV: 'test' }))).toBe('free');
    expect(problemsOf({ PAYMENT_GATEWAY: 'default' })).toEqual([
      'PAYMENT_GATEWAY must be one of the following values: free, operator, erc20',
    ]);
  });

  describe('PAYMENT_GATEWAY=erc20', () => {
    const token = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
    const receiver = '0x52908400098527886e0f7030069857d2e4169ee7';
    const complete = {
      PAYMENT_GATEWAY: 'erc20',
      PAYMENT_TOKEN_ADDRESS: token,
      PAYMENT_RECEIVER_ADDRESS: receiver,
      PAYMENT_PRICE_PER_PERIOD: '5000000',
      PAYMENT_CHAIN_ID: '8453',
      CHAIN_RPC_URL: 'http://127.0.0.1:8545',
    };

    it('builds the settings, addresses in EIP-55 form, one confirmation by default', () => {
      expect(erc20PaymentSettings(loadAppConfig(complete))).toEqual({
        chainId: 8453,
        token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        receiver: '0x52908400098527886E0F7030069857D2E4169EE7',
        pricePerPeriod: 5_000_000n,
        confirmations: 1,
        rpcUrl: 'http://127.0.0.1:8545',
      });
      const twelve = loadAppConfig({ ...complete, PAYMENT_CONFIRMATIONS: '12' });
      expect(erc20PaymentSettings(twelve).confirmations).toBe(12);
    });

    it('names every missing setting in one line', () => {
      expect(problemsOf({ PAYMENT_GATEWAY: 'erc20' })).toEqual([
        'PAYMENT_GATEWAY=erc20 requires PAYMENT_TOKEN_ADDRESS, PAYMENT_RECEIVER_ADDRESS, PAYMENT_PRICE_PER_PERIOD, ' +
          'PAYMENT_CHAIN_ID, CHAIN_RPC_URL',
      ]);
    });

    it.each([
      ['PAYMENT_PRICE_PER_PERIOD', '0', 'PAYMENT_PRICE_PER_PERIOD must be a positive integer'],
      ['PAYMENT_PRICE_PER_PERIOD', '1.5', 'PAYMENT_PRICE_PER_PERIOD must be a positive integer'],
      [
        'PAYMENT_PRICE_PER_PERIOD',
        (2n ** 256n).toString(),
        'PAYMENT_PRICE_PER_PERIOD must not be larger than a uint256',
      ],
      [
        'PAYMENT_TOKEN_ADDRESS',
        '0x1234',
        'PAYMENT_TOKEN_ADDRESS must be a contract address (0x and 40 hex digits)',
      ],
      ['PAYMENT_RECEIVER_ADDRESS', token, 'PAYMENT_RECEIVER_ADDRESS: must differ from PAYMENT_TOKEN_ADDRESS'],
      ['PAYMENT_CONFIRMATIONS', '0', 'PAYMENT_CONFIRMATIONS must not be less than 1'],
    ])('refuses %s=%s', (name, value, problem) => {
      // A refused required value is also reported as missing for erc20.
      expect(problemsOf({ ...complete, [name]: value })[0]).toBe(problem);
    });
  });
});

describe('the keeper key', () => {
  const key = `0x${'ab'.repeat(32)}`;
  const charger = '0x00000000000000000000000000000000000000c4';
  const production = {
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64'),
    PAYMENT_GATEWAY: 'free',
  };
  const keyFile = (content: string): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'tollgate-keeper-')), 'keeper.key');
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  it('is required in production once automatic renewal is configured, from either setting', () => {
    expect(problemsOf({ ...production, AUTO_RENEW_CHARGER_ADDRESS: charger })).toEqual([
      'AUTO_RENEW_CHARGER_ADDRESS: automatic renewal needs the keeper key in production (KEEPER_KEY_FILE or KEEPER_PRIVATE_KEY)',
    ]);
    expect(problemsOf({ AUTO_RENEW_CHARGER_ADDRESS: charger })).toEqual([]);
    expect(problemsOf({ ...production })).toEqual([]);
    const fromEnv = loadAppConfig({
      ...production,
      AUTO_RENEW_CHARGER_ADDRESS: charger,
      KEEPER_PRIVATE_KEY: key,
    });
    expect(keeperKeyOf(fromEnv)).toBe(key);
    const fromFile = loadAppConfig({
      ...production,
      AUTO_RENEW_CHARGER_ADDRESS: charger,
      KEEPER_KEY_FILE: keyFile(`${key}\n`),
    });
    expect(keeperKeyOf(fromFile)).toBe(key);
  });

  it('refuses a malformed key without repeating it, and both settings at once', () => {
    const wrong = `0x${'cd'.repeat(31)}`;
    const problems = [
      ...problemsOf({ KEEPER_PRIVATE_KEY: wrong }),
      ...problemsOf({ KEEPER_KEY_FILE: keyFile(wrong) }),
    ];
    expect(problems).toEqual([
      'KEEPER_PRIVATE_KEY must be a private key: 0x and 64 hex digits',
      expect.stringMatching(
        /^KEEPER_KEY_FILE: .*keeper\.key must hold one private key: 0x and 64 hex digits$/,
      ),
    ]);
    expect(problems.join(' ')).not.toContain(wrong.slice(2));
    expect(problemsOf({ KEEPER_KEY_FILE: '/nonexistent/keeper.key' })).toEqual([
      'KEEPER_KEY_FILE: cannot read /nonexistent/keeper.key (ENOENT)',
    ]);
    expect(problemsOf({ KEEPER_PRIVATE_KEY: key, KEEPER_KEY_FILE: keyFile(key) })).toEqual([
      'KEEPER_PRIVATE_KEY and KEEPER_KEY_FILE: set one, not both',
    ]);
  });
});

describe('settings declarations', () => {
  it('name each variable once', () => {
    const names = Object.values(SETTINGS).map((declared) => declared.env);
    expect(new Set(names).size).toBe(names.length);
  });

  it('render one table row per setting with its default and meaning', () => {
    const table = renderConfigTable({
      limit: setting({ env: 'LIMIT', parse: integer(), default: 5, doc: 'How many | at most.' }),
      url: setting<number | undefined>({ env: 'URL', parse: integer(), default: undefined, doc: 'Where.' }),
    } as never);
    expect(table.split('\n')).toEqual([
      '| Variable | Default | Meaning              |',
      '| -------- | ------- | -------------------- |',
      '| `LIMIT`  | `5`     | How many \\| at most. |',
      '| `URL`    | unset   | Where.               |',
    ]);
  });

  it('are what docs/configuration.md documents (run `npm run docs:config` when this fails)', () => {
    const reference = readFileSync(resolve('docs/configuration.md'), 'utf8');
    expect(reference).toContain(TABLE_START);
    expect(reference).toContain(TABLE_END);
    expect(withConfigTable(reference)).toBe(reference);
  });

  it('are what .env.example lists, every variable once (run `npm run docs:config` when this fails)', () => {
    const example = readFileSync(resolve('.env.example'), 'utf8');
    expect(example).toBe(renderEnvExample());
    const listed = [...example.matchAll(/^# ([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
    expect(listed).toEqual(Object.values(SETTINGS).map((declared) => declared.env));
  });
});
