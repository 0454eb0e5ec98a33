import { randomInt, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import { newWallet } from './utils/wallet.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './utils/test-app.js';

/** The Redis the shared-budget tests use; CI and the development machines run one on the default port. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 5;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One request from a chosen loopback address (127.x.y.z all reach a server on 127.0.0.1), so that each test spends
 * the budget of an address of its own, whatever ran before it against the same Redis.
 */
function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { from?: string; token?: string; body?: unknown } = {},
): Promise<Answer> {
  const url = new URL(path, baseUrl);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: options.from,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: text ? JSON.parse(text) : undefined,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const randomLoopback = (): string => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** A session token as POST /auth/verify issues it, for a new wallet (no sign-in spends an address's budget). */
function sessionToken(): string {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign(
    {
      sub: newWallet().address,
      iat: now,
      exp: now + 3600,
      jti: randomUUID(),
      iss: 'tollgate',
      aud: 'tollgate-api',
    },
    TEST_JWT_SECRET,
    { algorithm: 'HS256' },
  );
}

function expectRateLimited(answer: Answer): void {
  expect(answer.status).toBe(429);
  const retryAfter = Number(answer.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(answer.headers['x-ratelimit-limit']).toBe(String(LIMIT));
  expect(answer.headers['x-ratelimit-remaining']).toBe('0');
  expect(answer.body).toEqual({
    error: expect.stringContaining('Too many requests'),
    details: {
      code: 'rate_limited',
      retryAfterSeconds: retryAfter,
      requestId: answer.headers['x-request-id'],
    },
  });
}

/**
 * RATE_LIMIT_PER_MINUTE with the counters in Redis, on two instances (A in this process, B a process of its own).
 * Needs Redis at TEST_REDIS_URL (default 127.0.0.1:6379): without it the suite fails, saying so, rather than skip.
 */
describe(`rate limiting (RATE_LIMIT_PER_MINUTE=${LIMIT}, shared in Redis)`, () => {
  let a: TestApp;
  let b: ServiceProcess;

  beforeAll(async () => {
    const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000 });
    try {
      await probe.connect();
      await probe.ping();
    } catch (error) {
      throw new Error(
        `these tests need Redis at ${REDIS_URL} (start redis-server, or set TEST_REDIS_URL): ${(error as Error).message}`,
        { cause: error },
      );
    } finally {
      probe.disconnect();
    }
    const env = {
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      RATE_LIMIT_REDIS_URL: REDIS_URL,
      WEBHOOK_WORKERS: 'false',
    };
    a = await startTestApp({ env });
    b = await startServiceProcess(a.databaseUrl, env);
  });
  afterAll(async () => {
    await b?.kill();
    await a?.close();
  });

  it('limits a public route per client address, with Retry-After, the x-ratelimit headers and the error object', async () => {
    const from = randomLoopback();
    const body = { address: newWallet().address };
    for (let i = 0; i < LIMIT; i++) {
      const allowed = await send(a.url, 'POST', '/auth/nonce', { from, body });
      expect(allowed.status).toBe(200);
      expect(allowed.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(allowed.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1 - i));
    }
    expectRateLimited(await send(a.url, 'POST', '/auth/nonce', { from, body }));
    // The same address is refused on every public route, and a credential it invents changes nothing there.
    expectRateLimited(await send(a.url, 'POST', '/auth/verify', { from, body: {} }));
    expectRateLimited(
      await send(a.url, 'POST', '/auth/nonce', { from, body, token: `made-up-${randomUUID()}` }),
    );
    // Another address still has its whole budget.
    expect((await send(a.url, 'POST', '/auth/nonce', { from: randomLoopback(), body })).status).toBe(200);
  });

  it('never limits the health probes', async () => {
    const from = randomLoopback();
    for (let i = 0; i < LIMIT; i++) await send(a.url, 'POST', '/auth/nonce', { from, body: {} });
    for (const path of ['/health', '/health/live', '/health/ready']) {
      for (let i = 0; i < LIMIT + 2; i++) {
        const probe = await send(a.url, 'GET', path, { from });
        expect(probe.status).toBe(200);
        expect(probe.headers['x-ratelimit-limit']).toBeUndefined();
      }
    }
  });

  it('gives each credential its own budget, whatever address it comes from, and each wallet one for all of them', async () => {
    const owner = sessionToken();
    const keys: string[] = [];
    for (const label of ['first', 'second']) {
      const created = await send(a.url, 'POST', '/api-keys', {
        token: owner,
        body: { label, scopes: ['READ_ONLY'] },
      });
      expect(created.status).toBe(200);
      keys.push(created.body.key as string);
    }
    const [first, second] = keys as [string, string];
    // A key of another wallet: its budgets are its own.
    const stranger = sessionToken();
    const strangerKey = await send(a.url, 'POST', '/api-keys', {
      token: stranger,
      body: { label: 'stranger', scopes: ['READ_ONLY'] },
    });
    expect(strangerKey.status).toBe(200);
    // The two creations spent two of the wallet's requests; the first key spends the rest, from any address.
    for (let i = 0; i < LIMIT - 2; i++) {
      const answer = await send(a.url, 'GET', '/auth/session', { token: first, from: randomLoopback() });
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1 - i));
    }
    // Its other key and its session still have budgets of their own, but the wallet's is spent.
    for (const token of [second, owner, first]) {
      const refused = await send(a.url, 'GET', '/auth/session', { token, from: randomLoopback() });
      expect(refused.status).toBe(429);
      expect(refused.body.details).toEqual({
        code: 'rate_limited',
        retryAfterSeconds: Number(refused.headers['retry-after']),
        requestId: refused.headers['x-request-id'],
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(
      (await send(a.url, 'GET', '/auth/session', { token: strangerKey.body.key as string })).status,
    ).toBe(200);
    // A credential's own budget holds too: the first key has spent it (with the refusals above counted).
    expectRateLimited(await send(a.url, 'GET', '/auth/session', { token: first, from: randomLoopback() }));
    // Counters are kept under a digest of the credential, never the credential itself.
    const redis = new Redis(REDIS_URL);
    try {
      const stored = await redis.keys('tollgate-rate-limit:*');
      expect(stored.length).toBeGreaterThan(0);
      for (const secret of [first, second, owner]) {
        expect(stored.filter((key) => key.includes(secret) || key.includes(secret.slice(3, 20)))).toEqual([]);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('shares one budget between the instances', async () => {
    const token = sessionToken();
    const from = randomLoopback();
    for (const url of [a.url, b.url, a.url, b.url, a.url]) {
      expect((await send(url, 'GET', '/auth/session', { token })).status).toBe(200);
      expect((await send(url, 'POST', '/auth/nonce', { from, body: {} })).status).toBe(400);
    }
    expectRateLimited(await send(b.url, 'GET', '/auth/session', { token }));
    expectRateLimited(await send(a.url, 'GET', '/auth/session', { token }));
    expectRateLimited(await send(b.url, 'POST', '/auth/nonce', { from, body: {} }));
  });

  it('is off without RATE_LIMIT_PER_MINUTE: no limit and no rate-limit headers', async () => {
    const unlimited = await startServiceProcess(a.databaseUrl, { WEBHOOK_WORKERS: 'false' });
    try {
      const from = randomLoopback();
      for (let i = 0; i < 2 * LIMIT; i++) {
        const answer = await send(unlimited.url, 'POST', '/auth/nonce', {
          from,
          body: { address: newWallet().address },
        });
        expect(answer.status).toBe(200);
        expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await unlimited.kill();
    }
  });
});

/** RATE_LIMIT_PER_MINUTE with the counters in this process, in stores shrunk by RATE_LIMIT_LOCAL_COUNTERS. */
describe(`rate limiting (RATE_LIMIT_PER_MINUTE=${LIMIT}, counters in the process)`, () => {
  const COUNTERS = 20;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_LOCAL_COUNTERS: String(COUNTERS),
        WEBHOOK_WORKERS: 'false',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("keeps an address's counter while invented credentials flood the store", async () => {
    const from = randomLoopback();
    for (let i = 0; i < LIMIT; i++) {
      expect((await send(t.url, 'POST', '/auth/nonce', { from, body: {} })).status).toBe(400);
    }
    expectRateLimited(await send(t.url, 'POST', '/auth/nonce', { from, body: {} }));
    // Ten times the store's size in credentials nobody issued, of every shape, each a counter of its own.
    const invented = Array.from(
      { length: 10 * COUNTERS },
      (_, i) => [`made-up-${randomUUID()}`, `tg_${randomUUID().replaceAll('-', '')}`, sessionToken()][i % 3]!,
    );
    for (let i = 0; i < invented.length; i += 20) {
      const answers = await Promise.all(
        invented
          .slice(i, i + 20)
          .map((token) => send(t.url, 'GET', '/subscriptions/status', { from, token })),
      );
      for (const answer of answers) expect([200, 401]).toContain(answer.status);
    }
    expectRateLimited(await send(t.url, 'POST', '/auth/nonce', { from, body: {} }));
  });

  it("counts a wallet's credentials together in the process as well", async () => {
    const owner = sessionToken();
    const created = await send(t.url, 'POST', '/api-keys', {
      token: owner,
      body: { label: 'one', scopes: ['READ_ONLY'] },
    });
    expect(created.status).toBe(200);
    for (let i = 0; i < LIMIT - 1; i++) {
      expect((await send(t.url, 'GET', '/auth/session', { token: created.body.key as string })).status).toBe(
        200,
      );
    }
    expect((await send(t.url, 'GET', '/auth/session', { token: owner })).status).toBe(429);
  });
});
