import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import pg from 'pg';
import { EventOutbox } from '../src/events/event-outbox.service.js';
import { requestFingerprint } from '../src/subscriptions/idempotency/idempotent-request.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from '../src/subscriptions/payment/payment-gateway.js';
import { http } from './utils/http.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

const DEFAULT_PLAN_FIELDS = {
  plan: { id: 'default', name: 'Default' },
  features: [],
  trialEnd: null,
  graceEndsAt: null,
  pendingPlan: null,
  // Addition of automatic renewal: off until a mandate is registered.
  autoRenew: {
    enabled: false,
    nextChargeAt: null,
    amount: null,
    token: null,
    endsAt: null,
    failure: null,
  },
};

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A mixed-case address whose EIP-55 checksum is wrong. */
const BAD_CHECKSUM = '0x52908400098527886E0F7030069857D2E4169Ee7';

const ms = (iso: string): number => Date.parse(iso);
/** The payment of a renewal under the default gateway (`free`), as history and events show it. */
const FREE_PAYMENT = {
  gateway: 'free',
  amount: '0',
  chainId: null,
  token: null,
  payer: null,
  txHash: null,
  logIndex: null,
};

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The HTTP calls and database reads every block below uses. */
function client(t: TestApp, db: pg.Client) {
  const api = http(t.url);
  const key = (idempotencyKey?: string) =>
    idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey };
  return {
    api,
    status: (who: WalletSession, address: string = who.address) =>
      api.get(`/subscriptions/status?address=${address}`, { token: who.token }),
    history: (who: WalletSession, address: string = who.address) =>
      api.get(`/subscriptions/history?address=${address}`, { token: who.token }),
    renew: (who: WalletSession, body: object = {}, idempotencyKey?: string) =>
      api.post('/subscriptions/renew', { token: who.token, body, headers: key(idempotencyKey) }),
    cancel: (who: WalletSession, body: object = {}, idempotencyKey?: string) =>
      api.post('/subscriptions/cancel', { token: who.token, body, headers: key(idempotencyKey) }),
    /** Rows of one of the tables, for one address, oldest first. */
    rows: async (table: 'subscriptions' | 'subscription_events' | 'payments' | 'events', address: string) => {
      const order =
        table === 'subscription_events' ? 'seq' : table === 'subscriptions' ? 'address' : 'created_at';
      const { rows } = await db.query(`SELECT * FROM ${table} WHERE address = $1 ORDER BY ${order}`, [
        address.toLowerCase(),
      ]);
      return rows;
    },
  };
}

describe('subscriptions over HTTP', () => {
  const PERIOD_MS = 3_600_000;
  const operatorWallet = newWallet();
  let t: TestApp;
  let db: pg.Client;
  let c: ReturnType<typeof client>;
  let operator: WalletSession;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_MS / 1000),
        OPERATOR_ADDRESSES: operatorWallet.address.toLowerCase(),
        // No expiry sweep: what is recorded here is only what the requests record.
        WEBHOOK_WORKERS: 'false',
      },
    });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    c = client(t, db);
    operator = await login(t.url, operatorWallet);
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  describe('status', () => {
    it('answers `none` with every timestamp null for an address that never subscribed', async () => {
      const user = await login(t.url);
      const response = await c.status(user, user.address.toLowerCase());
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        address: user.address,
        status: 'none',
        active: false,
        currentPeriodStart: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        canceledAt: null,
        createdAt: null,
        updatedAt: null,
        // Additions of plans: a deployment without plans is on `default`.
        ...DEFAULT_PLAN_FIELDS,
      });
      const history = await c.history(user);
      expect(history.status).toBe(200);
      expect(history.body).toEqual([]);
    });

    // Without `address` both read the caller's own subscription (test/api-conveniences.e2e-spec.ts).
    it.each([
      ['empty', '?address='],
      ['too short', '?address=0x1234'],
      ['not hex', '?address=0xZZ908400098527886E0F7030069857D2E4169EE7'],
      ['of a wrong checksum', `?address=${BAD_CHECKSUM}`],
      ['given twice', `?address=${BAD_CHECKSUM.toLowerCase()}&address=${BAD_CHECKSUM.toLowerCase()}`],
      ['beside an unknown parameter', `?address=${BAD_CHECKSUM.toLowerCase()}&foo=1`],
    ])('answers 400 validation_failed when the address is %s', async (_case, query) => {
      const user = await login(t.url);
      for (const path of ['/subscriptions/status', '/subscriptions/history']) {
        const response = await c.api.get(`${path}${query}`, { token: user.token });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          error: expect.any(String),
          details: { code: 'validation_failed', fields: expect.any(Array) },
        });
      }
    });

    it('needs a credential', async () => {
      const wallet = newWallet();
      for (const response of [
        await c.api.get(`/subscriptions/status?address=${wallet.address}`),
        await c.api.get(`/subscriptions/history?address=${wallet.address}`),
        await c.api.post('/subscriptions/renew', { body: {} }),
        await c.api.post('/subscriptions/cancel', { body: {} }),
      ]) {
        expect(response.status).toBe(401);
        expect(response.body.details.code).toBe('missing_credentials');
      }
    });
  });

  describe('transitions', () => {
    it('starts a new subscription with one period from now, exactly, and records it', async () => {
      const user = await login(t.url);
      const before = Date.now();
      const response = await c.renew(user);
      const after = Date.now();
      expect(response.status).toBe(200);
      const body = response.body;
      expect(body).toEqual({
        address: user.address,
        status: 'active',
        active: true,
        currentPeriodStart: expect.stringMatching(ISO_MS),
        currentPeriodEnd: expect.stringMatching(ISO_MS),
        cancelAtPeriodEnd: false,
        canceledAt: null,
        createdAt: body.currentPeriodStart,
        updatedAt: body.currentPeriodStart,
        ...DEFAULT_PLAN_FIELDS,
      });
      expect(ms(body.currentPeriodStart)).toBeGreaterThanOrEqual(before - 1000);
      expect(ms(body.currentPeriodStart)).toBeLessThanOrEqual(after + 1000);
      expect(ms(body.currentPeriodEnd) - ms(body.currentPeriodStart)).toBe(PERIOD_MS);

      expect((await c.status(user)).body).toEqual(body);
      expect((await c.history(user)).body).toEqual([
        {
          id: expect.stringMatching(UUID),
          type: 'renewed',
          at: body.currentPeriodStart,
          actor: user.address,
          previousPeriodEnd: null,
          currentPeriodEnd: body.currentPeriodEnd,
          payment: FREE_PAYMENT,
          // Addition of plan changes: null on other entries.
          planChange: null,
        },
      ]);
      const payments = await c.rows('payments', user.address);
      expect(payments).toEqual([
        expect.objectContaining({
          gateway: 'free',
          amount_minor: '0',
          currency: null,
          period_start: new Date(body.currentPeriodStart),
          period_end: new Date(body.currentPeriodEnd),
        }),
      ]);
      const events = await c.rows('events', user.address);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'subscription.renewed',
          data: { ...body, previousPeriodEnd: null, periods: 1, payment: FREE_PAYMENT },
        }),
      ]);
    });

    it('extends an active subscription by exactly one period from its end, keeping its start', async () => {
      const user = await login(t.url);
      const first = (await c.renew(user)).body;
      const second = await c.renew(user);
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({
        status: 'active',
        currentPeriodStart: first.currentPeriodStart,
        createdAt: first.createdAt,
      });
      expect(ms(second.body.currentPeriodEnd)).toBe(ms(first.currentPeriodEnd) + PERIOD_MS);
      expect(ms(second.body.updatedAt)).toBeGreaterThanOrEqual(ms(first.updatedAt));
      const payments = await c.rows('payments', user.address);
      expect(payments[1]).toMatchObject({
        period_start: new Date(first.currentPeriodEnd),
        period_end: new Date(second.body.currentPeriodEnd),
      });
      const events = await c.rows('events', user.address);
      expect(events[1].data).toEqual({
        ...second.body,
        previousPeriodEnd: first.currentPeriodEnd,
        periods: 1,
        payment: FREE_PAYMENT,
      });
      const history = (await c.history(user)).body;
      expect(history[0]).toMatchObject({
        type: 'renewed',
        previousPeriodEnd: first.currentPeriodEnd,
        currentPeriodEnd: second.body.currentPeriodEnd,
      });
    });

    it('cancels at period end, keeps the paid period, ignores a repeat, and a renewal drops the cancel', async () => {
      const user = await login(t.url);
      const renewed = (await c.renew(user)).body;
      const before = Date.now();
      const canceled = await c.cancel(user);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toEqual({
        ...renewed,
        status: 'active',
        active: true,
        cancelAtPeriodEnd: true,
        canceledAt: expect.stringMatching(ISO_MS),
        updatedAt: canceled.body.canceledAt,
      });
      expect(ms(canceled.body.canceledAt)).toBeGreaterThanOrEqual(before - 1000);

      const again = await c.cancel(user, { immediate: false });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(canceled.body);
      expect((await c.status(user)).body).toEqual(canceled.body);

      const events = await c.rows('events', user.address);
      expect(events.map((event) => event.type)).toEqual(['subscription.renewed', 'subscription.canceled']);
      expect(events[1].data).toEqual({
        ...canceled.body,
        previousPeriodEnd: renewed.currentPeriodEnd,
        immediate: false,
      });

      const renewedAgain = await c.renew(user);
      expect(renewedAgain.body).toMatchObject({
        status: 'active',
        cancelAtPeriodEnd: false,
        canceledAt: null,
        currentPeriodStart: renewed.currentPeriodStart,
      });
      expect(ms(renewedAgain.body.currentPeriodEnd)).toBe(ms(renewed.currentPeriodEnd) + PERIOD_MS);
      expect((await c.history(user)).body.map((entry: { type: string }) => entry.type)).toEqual([
        'renewed',
        'canceled',
        'renewed',
      ]);
    });

    it('cancels immediately; a renewal then starts a fresh period and records the ended one', async () => {
      const user = await login(t.url);
      const renewed = (await c.renew(user)).body;
      const canceled = await c.cancel(user, { immediate: true });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toEqual({
        ...renewed,
        status: 'canceled',
        active: false,
        currentPeriodEnd: canceled.body.canceledAt,
        cancelAtPeriodEnd: false,
        canceledAt: expect.stringMatching(ISO_MS),
        updatedAt: canceled.body.canceledAt,
      });
      expect(ms(canceled.body.canceledAt)).toBeGreaterThanOrEqual(ms(renewed.currentPeriodStart));

      for (const body of [{ immediate: true }, {}]) {
        const again = await c.cancel(user, body);
        expect(again.status).toBe(200);
        expect(again.body).toEqual(canceled.body);
      }
      const canceledEvent = (await c.rows('events', user.address))[1];
      expect(canceledEvent).toMatchObject({
        type: 'subscription.canceled',
        data: { ...canceled.body, previousPeriodEnd: renewed.currentPeriodEnd, immediate: true },
      });

      const fresh = await c.renew(user);
      expect(fresh.body).toMatchObject({
        status: 'active',
        active: true,
        cancelAtPeriodEnd: false,
        canceledAt: null,
        createdAt: renewed.createdAt,
      });
      expect(ms(fresh.body.currentPeriodStart)).toBeGreaterThanOrEqual(ms(canceled.body.canceledAt));
      expect(ms(fresh.body.currentPeriodEnd) - ms(fresh.body.currentPeriodStart)).toBe(PERIOD_MS);

      // No sweep runs here: the renewal itself recorded the expiry of the period the cancel ended.
      const history = (await c.history(user)).body;
      expect(history).toEqual([
        expect.objectContaining({
          type: 'renewed',
          at: fresh.body.currentPeriodStart,
          previousPeriodEnd: canceled.body.canceledAt,
        }),
        expect.objectContaining({
          type: 'expired',
          at: canceled.body.canceledAt,
          actor: 'system',
          previousPeriodEnd: canceled.body.canceledAt,
          currentPeriodEnd: canceled.body.canceledAt,
        }),
        expect.objectContaining({ type: 'canceled', at: canceled.body.canceledAt }),
        expect.objectContaining({ type: 'renewed', at: renewed.currentPeriodStart }),
      ]);
      const expired = (await c.rows('events', user.address)).filter(
        (event) => event.type === 'subscription.expired',
      );
      expect(expired).toHaveLength(1);
      expect(expired[0].data).toEqual({ ...canceled.body, reason: 'canceled' });
    });

    it('answers 404 subscription_not_found when cancelling a subscription that never existed', async () => {
      const user = await login(t.url);
      const response = await c.cancel(user, { immediate: true });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        error: expect.any(String),
        details: { code: 'subscription_not_found' },
      });
      expect((await c.status(user)).body.status).toBe('none');
    });

    it('lists the history newest first', async () => {
      const user = await login(t.url);
      await c.renew(user);
      await c.cancel(user);
      await c.renew(user);
      await c.cancel(user, { immediate: true });
      const response = await c.history(user, user.address.toLowerCase());
      expect(response.status).toBe(200);
      const entries = response.body as Array<{ id: string; type: string; at: string }>;
      expect(entries.map((entry) => entry.type)).toEqual(['canceled', 'renewed', 'canceled', 'renewed']);
      expect(new Set(entries.map((entry) => entry.id)).size).toBe(4);
      for (let i = 1; i < entries.length; i++) {
        expect(ms(entries[i - 1]!.at)).toBeGreaterThanOrEqual(ms(entries[i]!.at));
      }
      for (const entry of entries) {
        expect(Object.keys(entry).sort()).toEqual(
          [
            'actor',
            'at',
            'currentPeriodEnd',
            'id',
            'payment',
            'planChange',
            'previousPeriodEnd',
            'type',
          ].sort(),
        );
      }
    });

    it.each([
      ['renew', { address: 'nope' }],
      ['renew', { address: BAD_CHECKSUM }],
      ['renew', { extra: true }],
      ['cancel', { immediate: 'yes' }],
      ['cancel', { immediate: 1 }],
      ['cancel', { address: '0x1234' }],
      ['cancel', { reason: 'too expensive' }],
    ])('answers 400 validation_failed to %s with %j', async (operation, body) => {
      const user = await login(t.url);
      const response = await c.api.post(`/subscriptions/${operation}`, { token: user.token, body });
      expect(response.status).toBe(400);
      expect(response.body.details.code).toBe('validation_failed');
      expect(await c.rows('subscription_events', user.address)).toEqual([]);
    });

    it('accepts a renewal without any body, and refuses malformed JSON', async () => {
      const user = await login(t.url);
      const bare = await c.api.post('/subscriptions/renew', { token: user.token });
      expect(bare.status).toBe(200);
      expect(bare.body.address).toBe(user.address);
      const broken = await c.api.post('/subscriptions/renew', { token: user.token, body: '{"address":' });
      expect(broken.status).toBe(400);
      expect(broken.body.details.code).toBe('invalid_json');
    });
  });

  describe('who may act on which address', () => {
    it('keeps a wallet to its own address, and lets an operator act on any', async () => {
      const [alice, bob] = await Promise.all([login(t.url), login(t.url)]);
      for (const response of [
        await c.status(alice, bob.address),
        await c.history(alice, bob.address),
        await c.renew(alice, { address: bob.address }),
        await c.cancel(alice, { address: bob.address }),
      ]) {
        expect(response.status).toBe(403);
        expect(response.body).toEqual({ error: expect.any(String), details: { code: 'address_forbidden' } });
      }
      expect(await c.rows('subscriptions', bob.address)).toEqual([]);

      // Their own address, in any spelling, is fine.
      const own = await c.renew(alice, { address: alice.address.toLowerCase() });
      expect(own.status).toBe(200);
      expect(own.body.address).toBe(alice.address);

      expect((await c.status(operator, bob.address)).body.status).toBe('none');
      const renewed = await c.renew(operator, { address: bob.address.toLowerCase() });
      expect(renewed.status).toBe(200);
      expect(renewed.body).toMatchObject({ address: bob.address, status: 'active' });
      const canceled = await c.cancel(operator, { address: bob.address });
      expect(canceled.status).toBe(200);
      expect(canceled.body.cancelAtPeriodEnd).toBe(true);
      expect((await c.status(bob)).body).toEqual(canceled.body);
      expect((await c.status(operator, bob.address)).body).toEqual(canceled.body);

      const history = (await c.history(operator, bob.address)).body;
      expect(history.map((entry: { actor: string }) => entry.actor)).toEqual([
        operator.address,
        operator.address,
      ]);
      expect((await c.history(bob)).body).toEqual(history);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response without a second effect', async () => {
      const user = await login(t.url);
      const key = randomUUID();
      const first = await c.renew(user, {}, key);
      expect(first.status).toBe(200);
      // The same request in another spelling (explicit own address, lowercase) is the same request.
      for (const body of [{}, { address: user.address.toLowerCase() }]) {
        const replay = await c.renew(user, body, key);
        expect(replay.status).toBe(200);
        expect(replay.body).toEqual(first.body);
      }
      expect(await c.rows('subscription_events', user.address)).toHaveLength(1);
      expect(await c.rows('payments', user.address)).toHaveLength(1);
      expect(await c.rows('events', user.address)).toHaveLength(1);
      const [event] = await c.rows('subscription_events', user.address);
      expect(event.idempotency_key).toBe(key);

      // Without a key, or with another one, it is a new renewal.
      const next = await c.renew(user, {}, randomUUID());
      expect(ms(next.body.currentPeriodEnd)).toBe(ms(first.body.currentPeriodEnd) + PERIOD_MS);
    });

    it('refuses the same key with a different request: 400 idempotency_key_reused', async () => {
      const [alice, bob] = await Promise.all([login(t.url), login(t.url)]);
      const key = randomUUID();
      expect((await c.renew(operator, { address: alice.address }, key)).status).toBe(200);
      for (const response of [
        await c.renew(operator, { address: bob.address }, key),
        await c.cancel(operator, { address: alice.address }, key),
      ]) {
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          error: expect.any(String),
          details: { code: 'idempotency_key_reused' },
        });
      }
      expect(await c.rows('subscriptions', bob.address)).toEqual([]);
      expect((await c.status(alice)).body.cancelAtPeriodEnd).toBe(false);

      const cancelKey = randomUUID();
      expect((await c.cancel(alice, {}, cancelKey)).status).toBe(200);
      const immediate = await c.cancel(alice, { immediate: true }, cancelKey);
      expect(immediate.status).toBe(400);
      expect(immediate.body.details.code).toBe('idempotency_key_reused');
      expect((await c.status(alice)).body.status).toBe('active');
    });

    it('scopes keys to the caller: the same key from another wallet is unrelated', async () => {
      const [alice, bob] = await Promise.all([login(t.url), login(t.url)]);
      const key = randomUUID();
      const fromAlice = await c.renew(alice, {}, key);
      const fromBob = await c.renew(bob, {}, key);
      expect(fromAlice.status).toBe(200);
      expect(fromBob.status).toBe(200);
      expect(fromBob.body.address).toBe(bob.address);
    });

    it('replays a refusal too: the 404 of a cancel stays the answer to that key', async () => {
      const user = await login(t.url);
      const key = randomUUID();
      const first = await c.cancel(user, {}, key);
      expect(first.status).toBe(404);
      await c.renew(user);
      const replay = await c.cancel(user, {}, key);
      expect(replay.status).toBe(404);
      expect(replay.body).toEqual(first.body);
      expect((await c.status(user)).body.cancelAtPeriodEnd).toBe(false);
      expect((await c.cancel(user, {}, randomUUID())).body.cancelAtPeriodEnd).toBe(true);
    });

    it.each([
      ['empty', ''],
      ['over 255 characters', 'k'.repeat(256)],
    ])('answers 400 validation_failed to a key that is %s', async (_case, key) => {
      const user = await login(t.url);
      const response = await c.renew(user, {}, key);
      expect(response.status).toBe(400);
      expect(response.body.details).toEqual({
        code: 'validation_failed',
        fields: [{ field: 'Idempotency-Key', message: expect.any(String) }],
      });
      expect(await c.rows('subscriptions', user.address)).toEqual([]);
      expect((await c.renew(user, {}, 'k'.repeat(255))).status).toBe(200);
    });

    it('answers 409 idempotency_in_progress while the first request still runs', async () => {
      const user = await login(t.url);
      const renewed = (await c.renew(user)).body;
      const key = randomUUID();
      // Holding the subscription's row lock keeps the first request waiting inside its transaction.
      const locker = new pg.Client({ connectionString: t.databaseUrl });
      await locker.connect();
      let first: ReturnType<typeof c.renew> | undefined;
      try {
        await locker.query('BEGIN');
        await locker.query('SELECT 1 FROM subscriptions WHERE address = $1 FOR UPDATE', [
          user.address.toLowerCase(),
        ]);
        first = c.renew(user, {}, key);
        await waitFor(async () => {
          const { rows } = await db.query(`SELECT status FROM idempotency_keys WHERE idempotency_key = $1`, [
            key,
          ]);
          return rows[0]?.status === 'in_progress' ? true : undefined;
        });
        const concurrent = await c.renew(user, {}, key);
        expect(concurrent.status).toBe(409);
        expect(concurrent.body).toEqual({
          error: expect.any(String),
          details: { code: 'idempotency_in_progress' },
        });
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      const completed = await first!;
      expect(completed.status).toBe(200);
      expect(ms(completed.body.currentPeriodEnd)).toBe(ms(renewed.currentPeriodEnd) + PERIOD_MS);
      const replay = await c.renew(user, {}, key);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(completed.body);
      expect(await c.rows('subscription_events', user.address)).toHaveLength(2);
    });

    it('takes over a key left in progress by a crashed attempt after 60 s, not before', async () => {
      const user = await login(t.url);
      const address = user.address.toLowerCase();
      const claim = (key: string, startedSecondsAgo: number) =>
        db.query(
          `INSERT INTO idempotency_keys (principal, idempotency_key, fingerprint, status, lease, started_at, expires_at)
           VALUES ($1, $2, $3, 'in_progress', gen_random_uuid(), now() - make_interval(secs => $4),
                   now() + interval '1 day')`,
          [`wallet:${address}`, key, requestFingerprint('renew', { address }), startedSecondsAgo],
        );
      const recent = randomUUID();
      await claim(recent, 5);
      expect((await c.renew(user, {}, recent)).status).toBe(409);

      const abandoned = randomUUID();
      await claim(abandoned, 61);
      const response = await c.renew(user, {}, abandoned);
      expect(response.status).toBe(200);
      expect(response.body.status).toBe('active');
      expect((await c.renew(user, {}, abandoned)).body).toEqual(response.body);
      expect(await c.rows('subscription_events', user.address)).toHaveLength(1);
    });
  });

  describe('concurrency', () => {
    it('extends by exactly N periods for N concurrent renewals, from none and from active', async () => {
      const user = await login(t.url);
      const first = await Promise.all(Array.from({ length: 10 }, () => c.renew(user)));
      expect(first.map((response) => response.status)).toEqual(Array(10).fill(200));
      const start = ms(first[0]!.body.currentPeriodStart);
      expect(first.every((response) => ms(response.body.currentPeriodStart) === start)).toBe(true);
      expect(
        first.map((response) => ms(response.body.currentPeriodEnd) - start).sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 10 }, (_, i) => (i + 1) * PERIOD_MS));

      const more = await Promise.all(Array.from({ length: 10 }, () => c.renew(user)));
      expect(more.map((response) => response.status)).toEqual(Array(10).fill(200));
      const status = (await c.status(user)).body;
      expect(ms(status.currentPeriodStart)).toBe(start);
      expect(ms(status.currentPeriodEnd) - start).toBe(20 * PERIOD_MS);
      expect(await c.rows('payments', user.address)).toHaveLength(20);

      // One chain of periods in the order the changes took effect: each entry starts where the one before ended,
      // and its time (the clock read once the row lock was granted, kept in milliseconds) is not before the one
      // before: two renewals granted the lock within one millisecond share it (seen on a fast machine).
      const entries = await c.rows('subscription_events', user.address);
      expect(entries).toHaveLength(20);
      expect(entries[0].previous_period_end).toBeNull();
      for (const [i, entry] of entries.entries()) {
        expect(entry.current_period_end.getTime() - start).toBe((i + 1) * PERIOD_MS);
        if (i === 0) continue;
        expect(entry.previous_period_end).toEqual(entries[i - 1].current_period_end);
        expect(entry.at.getTime()).toBeGreaterThanOrEqual(entries[i - 1].at.getTime());
      }
      // Each event carries its change's time, so the outbox has the same order (period ends rise along the chain;
      // events that share a millisecond are taken in that order).
      const events = (await c.rows('events', user.address)).sort((a, b) =>
        a.data.currentPeriodEnd.localeCompare(b.data.currentPeriodEnd),
      );
      expect(events.map((event) => [event.data.currentPeriodEnd, event.created_at])).toEqual(
        entries.map((entry) => [entry.current_period_end.toISOString(), entry.at]),
      );
    });
  });

  describe('atomicity', () => {
    afterEach(() => {
      jest.restoreAllMocks();
    });

    it('records nothing when the payment gateway fails, and frees the key for a retry', async () => {
      const gateway = t.app.get<PaymentGateway>(PAYMENT_GATEWAY);
      jest.spyOn(gateway, 'approve').mockRejectedValueOnce(new Error('payment provider unavailable'));
      const user = await login(t.url);
      const key = randomUUID();
      const failed = await c.renew(user, {}, key);
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual({ error: 'Internal server error', details: { code: 'internal_error' } });
      for (const table of ['subscriptions', 'subscription_events', 'payments', 'events'] as const) {
        expect(await c.rows(table, user.address)).toEqual([]);
      }
      const { rowCount } = await db.query(`SELECT 1 FROM idempotency_keys WHERE idempotency_key = $1`, [key]);
      expect(rowCount).toBe(0);

      const retried = await c.renew(user, {}, key);
      expect(retried.status).toBe(200);
      expect(await c.rows('subscription_events', user.address)).toHaveLength(1);
    });

    it('rolls back the change, its history, payment and event when anything fails at the last step', async () => {
      const user = await login(t.url);
      const renewed = (await c.renew(user)).body;
      const outbox = t.app.get(EventOutbox);
      const record = outbox.record.bind(outbox);
      jest.spyOn(outbox, 'record').mockImplementationOnce(async (tx, event) => {
        await record(tx, event);
        throw new Error('forced failure after the event was recorded');
      });
      expect((await c.renew(user)).status).toBe(500);
      expect((await c.status(user)).body).toEqual(renewed);
      expect(await c.rows('subscription_events', user.address)).toHaveLength(1);
      expect(await c.rows('payments', user.address)).toHaveLength(1);
      expect(await c.rows('events', user.address)).toHaveLength(1);
    });
  });
});

describe('subscription expiry', () => {
  const PERIOD_SECONDS = 2;
  const env = { SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS) };
  let t: TestApp;
  let db: pg.Client;
  let c: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp({ env });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    c = client(t, db);
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const expiredEvents = async (address: string) =>
    (await c.rows('events', address)).filter((event) => event.type === 'subscription.expired');

  it('computes the status from the clock, and records subscription.expired once per period end, with its reason, while two instances sweep', async () => {
    const second = await startServiceProcess(t.databaseUrl, env);
    try {
      const [notRenewed, canceledAtEnd, canceledNow, ...crowd] = await Promise.all(
        Array.from({ length: 8 }, () => login(t.url)),
      );
      const users = [notRenewed!, canceledAtEnd!, canceledNow!, ...crowd];
      // Renewals through both instances.
      await Promise.all(
        users.map((user, i) =>
          i % 2 === 0
            ? c.renew(user)
            : http(second.url).post('/subscriptions/renew', { token: user.token, body: {} }),
        ),
      );
      expect((await c.cancel(canceledAtEnd!)).body).toMatchObject({
        status: 'active',
        cancelAtPeriodEnd: true,
      });
      expect((await c.cancel(canceledNow!, { immediate: true })).body.status).toBe('canceled');

      const ends = new Map<string, string>();
      for (const user of users) ends.set(user.address, (await c.status(user)).body.currentPeriodEnd);
      // Both periods checked below must be over: they were renewed concurrently, so either may end last.
      const lastEnd = Math.max(ms(ends.get(notRenewed!.address)!), ms(ends.get(canceledAtEnd!.address)!));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastEnd - Date.now() + 50)));
      // Status does not wait for the sweep.
      expect((await c.status(notRenewed!)).body).toMatchObject({ status: 'expired', active: false });
      expect((await c.status(canceledAtEnd!)).body).toMatchObject({ status: 'canceled', active: false });

      const reasons = new Map([
        [notRenewed!.address, 'not_renewed'],
        [canceledAtEnd!.address, 'canceled'],
        [canceledNow!.address, 'canceled'],
        ...crowd.map((user) => [user.address, 'not_renewed'] as const),
      ]);
      for (const user of users) {
        const [event] = await waitFor(async () => {
          const events = await expiredEvents(user.address);
          return events.length > 0 ? events : undefined;
        });
        const status = (await c.status(user)).body;
        expect(event.data).toEqual({ ...status, reason: reasons.get(user.address) });
        expect(status.currentPeriodEnd).toBe(ends.get(user.address));
      }

      // A new period after the recorded expiry expires in its turn: one more event, for the new period end.
      const renewedAgain = (await c.renew(notRenewed!)).body;
      await waitFor(async () => ((await expiredEvents(notRenewed!.address)).length === 2 ? true : undefined));

      // Give both instances a few more sweeps to record anything twice.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      for (const user of users) {
        const events = await expiredEvents(user.address);
        const periodEnds = events.map((event) => event.data.currentPeriodEnd);
        expect(new Set(periodEnds).size).toBe(periodEnds.length);
        expect(events).toHaveLength(user === notRenewed ? 2 : 1);
        const history = (await c.history(user)).body.filter(
          (entry: { type: string }) => entry.type === 'expired',
        );
        expect(history.map((entry: { at: string }) => entry.at)).toEqual([...periodEnds].reverse());
        expect(history.every((entry: { actor: string }) => entry.actor === 'system')).toBe(true);
      }
      expect((await expiredEvents(notRenewed!.address))[1].data).toMatchObject({
        currentPeriodStart: renewedAgain.currentPeriodStart,
        currentPeriodEnd: renewedAgain.currentPeriodEnd,
        status: 'expired',
        reason: 'not_renewed',
      });
    } finally {
      await second.kill();
    }
    // No limit of its own: starting the second service process alone takes half a minute on a busy machine.
  });
});
