import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { Database } from '../src/database/database.service.js';
import { EventOutbox, type RecordedEvent } from '../src/events/event-outbox.service.js';
import type { EventType } from '../src/events/event-types.js';
import { http } from './utils/http.js';
import { Receiver, sleep, until, type Answer, type Received } from './utils/receiver.js';
import { startServiceProcess, startWorkerProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/** Receivers live on 127.0.0.1, so the service must be allowed plain http and private addresses. */
const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

/** Verifies a received request as an integrator would, with the reference Standard Webhooks library. */
function verify(secret: string, received: Received): unknown {
  return new Webhook(secret).verify(received.body, {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  });
}

/** Records an event the way producers do: through the outbox, in a transaction. */
function recordEvent(
  t: TestApp,
  type: EventType,
  address: string,
  data: Record<string, unknown> = {},
): Promise<RecordedEvent> {
  const outbox = t.app.get(EventOutbox);
  return t.app
    .get(Database)
    .transaction((tx) => outbox.record(tx, { type, address, data, occurredAt: new Date() }));
}

describe('webhooks', () => {
  const operator = newWallet();
  let t: TestApp;
  let api: ReturnType<typeof http>;
  let db: pg.Client;
  const receivers: Receiver[] = [];

  const receiver = async (answer?: (index: number) => Answer): Promise<Receiver> => {
    const started = await Receiver.start(answer);
    receivers.push(started);
    return started;
  };

  const save = async (session: WalletSession, body: Record<string, unknown>) => {
    const response = await api.post('/webhooks', { token: session.token, body });
    expect(response.status).toBe(200);
    return response.body;
  };

  /** Polls a GET route until its body satisfies `done` (deliveries run in the background), and returns it. */
  const eventually = async (
    session: WalletSession,
    path: string,
    done: (body: any) => boolean,
  ): Promise<any> => {
    let body: any;
    await until(
      async () => {
        body = (await api.get(path, { token: session.token })).body;
        return done(body);
      },
      5_000,
      `GET ${path} to settle`,
    );
    return body;
  };

  const deliveriesOf = async (eventId: string): Promise<string[]> => {
    const { rows } = await db.query<{ endpoint_id: string }>(
      'SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id',
      [eventId],
    );
    return rows.map((row) => row.endpoint_id);
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { ...LOOPBACK_ENV, OPERATOR_ADDRESSES: operator.address } });
    api = http(t.url);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await db.end();
    await t.close();
  });

  describe('configuration', () => {
    it('creates a configuration, returns the secret once and lists it without the secret', async () => {
      const session = await login(t.url);
      const created = await save(session, { url: 'http://127.0.0.1:9/hook', description: 'billing' });
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: 'http://127.0.0.1:9/hook',
        events: ['*'],
        enabled: true,
        description: 'billing',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: expect.any(String),
        secretPrefix: created.secret.slice(0, 10),
        failingSince: null,
        disabledReason: null,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      const list = await api.get('/webhooks', { token: session.token });
      expect(list.status).toBe(200);
      const { secret: _secret, ...withoutSecret } = created;
      expect(list.body).toEqual([withoutSecret]);
      expect(list.text).not.toContain(created.secret);
    });

    it('updates by id and by the same url, without returning the secret', async () => {
      const session = await login(t.url);
      const created = await save(session, { url: 'http://127.0.0.1:9/a' });

      const byId = await save(session, {
        id: created.id,
        url: 'http://127.0.0.1:9/b',
        events: ['subscription.renewed', 'api_key.created'],
        description: 'renewals',
      });
      expect(byId).toMatchObject({
        id: created.id,
        url: 'http://127.0.0.1:9/b',
        events: ['subscription.renewed', 'api_key.created'],
        description: 'renewals',
        secretPrefix: created.secretPrefix,
      });
      expect(byId.secret).toBeUndefined();

      // Without an id, the same URL (in any spelling that normalises to it) names the same configuration.
      const byUrl = await save(session, { url: 'HTTP://127.0.0.1:9/b', enabled: false });
      expect(byUrl).toMatchObject({
        id: created.id,
        enabled: false,
        events: byId.events,
        description: 'renewals',
      });
      expect(byUrl.secret).toBeUndefined();

      const cleared = await save(session, { id: created.id, url: 'http://127.0.0.1:9/b', description: null });
      expect(cleared.description).toBeNull();
      expect((await api.get('/webhooks', { token: session.token })).body).toHaveLength(1);
    });

    it('refuses to move a configuration onto the URL of another one of the caller', async () => {
      const session = await login(t.url);
      await save(session, { url: 'http://127.0.0.1:9/one' });
      const two = await save(session, { url: 'http://127.0.0.1:9/two' });
      const response = await api.post('/webhooks', {
        token: session.token,
        body: { id: two.id, url: 'http://127.0.0.1:9/one' },
      });
      expect(response.status).toBe(400);
      expect(response.body.details.code).toBe('webhook_url_taken');
    });

    it('keeps configurations private: a foreign id is 404 everywhere', async () => {
      const owner = await login(t.url);
      const other = await login(t.url);
      const created = await save(owner, { url: 'http://127.0.0.1:9/private' });

      const update = await api.post('/webhooks', {
        token: other.token,
        body: { id: created.id, url: 'http://127.0.0.1:9/hijack' },
      });
      expect(update.status).toBe(404);
      expect(update.body).toEqual({ error: expect.any(String), details: { code: 'webhook_not_found' } });
      const test = await api.post('/webhooks/test', { token: other.token, body: { id: created.id } });
      expect(test.status).toBe(404);
      const log = await api.get(`/webhooks/deliveries?webhookId=${created.id}`, { token: other.token });
      expect(log.status).toBe(404);
      expect((await api.get('/webhooks', { token: other.token })).body).toEqual([]);
      // The same URL for another wallet is another configuration.
      const theirs = await save(other, { url: 'http://127.0.0.1:9/private' });
      expect(theirs.id).not.toBe(created.id);
    });

    it('allows at most 10 configurations per wallet', async () => {
      const session = await login(t.url);
      for (let i = 0; i < 10; i++) await save(session, { url: `http://127.0.0.1:9/hook/${i}` });
      const eleventh = await api.post('/webhooks', {
        token: session.token,
        body: { url: 'http://127.0.0.1:9/hook/10' },
      });
      expect(eleventh.status).toBe(400);
      expect(eleventh.body.details).toEqual({ code: 'webhook_limit_reached', limit: 10 });
      // Updating one of the ten is still fine.
      await save(session, { url: 'http://127.0.0.1:9/hook/3', description: 'still fine' });
      expect((await api.get('/webhooks', { token: session.token })).body).toHaveLength(10);
    });

    it('creates at most 10 even when the requests race', async () => {
      const session = await login(t.url);
      const responses = await Promise.all(
        Array.from({ length: 14 }, (_, i) =>
          api.post('/webhooks', { token: session.token, body: { url: `http://127.0.0.1:9/race/${i}` } }),
        ),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
      expect(responses.filter((r) => r.body?.details?.code === 'webhook_limit_reached')).toHaveLength(4);
    });

    it.each([
      ['an unknown event type', { url: 'http://127.0.0.1:9/x', events: ['subscription.paused'] }],
      ['an empty event list', { url: 'http://127.0.0.1:9/x', events: [] }],
      ['duplicate event types', { url: 'http://127.0.0.1:9/x', events: ['*', '*'] }],
      ['a missing url', { events: ['*'] }],
      ['an id that is not a uuid', { id: '42', url: 'http://127.0.0.1:9/x' }],
      ['an unknown field', { url: 'http://127.0.0.1:9/x', secret: 'whsec_mine' }],
    ])('answers 400 validation_failed for %s', async (_label, body) => {
      const session = await login(t.url);
      const response = await api.post('/webhooks', { token: session.token, body });
      expect(response.status).toBe(400);
      expect(response.body.details.code).toBe('validation_failed');
    });

    it('answers 401 without credentials', async () => {
      expect((await api.get('/webhooks')).status).toBe(401);
      expect((await api.post('/webhooks', { body: { url: 'http://127.0.0.1:9/x' } })).status).toBe(401);
    });

    it('refuses private and plain-http URLs unless allowed, without connecting', async () => {
      const strict = await startServiceProcess(t.databaseUrl, {
        WEBHOOK_WORKERS: 'false',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'false',
      });
      const httpsOnly = await startServiceProcess(t.databaseUrl, { WEBHOOK_WORKERS: 'false' });
      try {
        const session = await login(strict.url);
        const post = (instance: ServiceProcess, url: string) =>
          http(instance.url).post('/webhooks', { token: session.token, body: { url } });

        for (const url of [
          'http://10.0.0.1/',
          'http://127.0.0.1:9/hook',
          'http://[::1]/',
          'http://169.254.169.254/',
        ]) {
          const response = await post(strict, url);
          expect(response.status).toBe(400);
          expect(response.body.details.code).toBe('webhook_url_forbidden');
        }
        // Outside production each refusal names the setting that would lift it.
        const localhost = await post(strict, 'http://localhost:3000/');
        expect(localhost.body.details).toEqual({
          code: 'webhook_url_forbidden',
          reason: 'loopback',
          setting: 'WEBHOOK_ALLOW_PRIVATE',
        });

        const plain = await post(httpsOnly, 'http://10.0.0.1/');
        expect(plain.status).toBe(400);
        expect(plain.body.details).toEqual({
          code: 'webhook_url_invalid',
          reason: 'http_not_allowed',
          setting: 'WEBHOOK_ALLOW_HTTP',
        });
        const ftp = await post(httpsOnly, 'ftp://10.0.0.1/');
        expect(ftp.body.details.code).toBe('webhook_url_invalid');
        expect((await http(strict.url).get('/webhooks', { token: session.token })).body).toEqual([]);
      } finally {
        await strict.kill();
        await httpsOnly.kill();
      }
    });
  });

  describe('POST /webhooks/test', () => {
    it('sends a signed webhook.test to each enabled configuration and reports each answer', async () => {
      const session = await login(t.url);
      const ok = await receiver();
      const failing = await receiver(() => ({ status: 500, body: 'broken' }));
      const idle = await receiver();
      const good = await save(session, { url: ok.url, events: ['subscription.renewed'] });
      const bad = await save(session, { url: failing.url });
      await save(session, { url: idle.url, enabled: false });

      const response = await api.post('/webhooks/test', { token: session.token, body: {} });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        deliveries: [
          {
            deliveryId: expect.any(String),
            webhookId: good.id,
            url: ok.url,
            success: true,
            statusCode: 200,
            durationMs: expect.any(Number),
            error: null,
            status: 'succeeded',
          },
          {
            deliveryId: expect.any(String),
            webhookId: bad.id,
            url: failing.url,
            success: false,
            statusCode: 500,
            durationMs: expect.any(Number),
            error: 'http_status: 500',
            status: 'failed',
          },
        ],
      });
      expect(idle.received).toHaveLength(0);

      const [received] = ok.received;
      const body = verify(good.secret, received!) as Record<string, any>;
      expect(body).toEqual({
        id: received!.headers['webhook-id'],
        type: 'webhook.test',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: { address: session.address, message: expect.any(String) },
      });
      expect(received!.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(received!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
      expect(() => verify(bad.secret, received!)).toThrow();

      // A test is attempted once: the failing receiver is not retried, and its configuration is not marked failing.
      await sleep(6_500);
      expect(failing.received).toHaveLength(1);
      const after = (await api.get('/webhooks', { token: session.token })).body;
      expect(after.find((w: any) => w.id === bad.id)).toMatchObject({ enabled: true, failingSince: null });
    }, 20_000);

    it('tests only the named configuration, even a disabled one', async () => {
      const session = await login(t.url);
      const named = await receiver();
      const other = await receiver();
      const target = await save(session, { url: named.url, enabled: false });
      await save(session, { url: other.url });
      const response = await api.post('/webhooks/test', { token: session.token, body: { id: target.id } });
      expect(response.status).toBe(200);
      expect(response.body.deliveries).toHaveLength(1);
      expect(response.body.deliveries[0]).toMatchObject({ webhookId: target.id, success: true });
      expect(named.received).toHaveLength(1);
      expect(other.received).toHaveLength(0);
    });

    it('answers with no deliveries when the caller has no enabled configuration, body or not', async () => {
      const session = await login(t.url);
      const response = await api.post('/webhooks/test', { token: session.token, body: {} });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ deliveries: [] });
      const withoutBody = await api.post('/webhooks/test', { token: session.token });
      expect(withoutBody.status).toBe(200);
      expect(withoutBody.body).toEqual({ deliveries: [] });
    });

    it('reports an unreachable receiver as a failed delivery, still 200', async () => {
      const session = await login(t.url);
      const gone = await Receiver.start();
      await gone.close();
      await save(session, { url: gone.url });
      const response = await api.post('/webhooks/test', { token: session.token, body: {} });
      expect(response.status).toBe(200);
      expect(response.body.deliveries[0]).toMatchObject({
        success: false,
        statusCode: null,
        error: 'connection_error: ECONNREFUSED',
      });
    });
  });

  describe('event delivery', () => {
    it('delivers a recorded event to the configurations that subscribe to it, signed', async () => {
      const session = await login(t.url);
      const all = await receiver();
      const renewals = await receiver();
      const keysOnly = await receiver();
      const toAll = await save(session, { url: all.url });
      const toRenewals = await save(session, { url: renewals.url, events: ['subscription.renewed'] });
      await save(session, { url: keysOnly.url, events: ['api_key.created'] });

      const event = await recordEvent(t, 'subscription.renewed', session.address, { plan: 'monthly', n: 1 });
      expect(await deliveriesOf(event.id)).toEqual([toAll.id, toRenewals.id].sort());

      for (const [target, config] of [
        [all, toAll],
        [renewals, toRenewals],
      ] as const) {
        const [received] = await target.waitFor(1);
        expect(received!.headers['webhook-id']).toBe(event.id);
        expect(JSON.parse(received!.body)).toEqual({
          id: event.id,
          type: 'subscription.renewed',
          timestamp: event.occurredAt.toISOString(),
          data: { plan: 'monthly', n: 1 },
        });
        expect(verify(config.secret, received!)).toEqual(JSON.parse(received!.body));
      }
      expect(keysOnly.received).toHaveLength(0);

      // The receiver answers before the attempt is recorded.
      const log = await eventually(
        session,
        `/webhooks/deliveries?webhookId=${toAll.id}`,
        (b) => b.length > 0,
      );
      expect(log).toEqual([
        {
          id: expect.any(String),
          deliveryId: expect.any(String),
          webhookId: toAll.id,
          eventId: event.id,
          eventType: 'subscription.renewed',
          attemptedAt: expect.any(String),
          success: true,
          statusCode: 200,
          durationMs: expect.any(Number),
          error: null,
          responseBody: null,
          deliveryStatus: 'succeeded',
          nextAttemptAt: null,
        },
      ]);
    });

    it('delivers the events of POST /subscriptions/renew and /cancel', async () => {
      const session = await login(t.url);
      const target = await receiver();
      const config = await save(session, { url: target.url });

      const renewed = await api.post('/subscriptions/renew', { token: session.token, body: {} });
      expect(renewed.status).toBe(200);
      const [first] = await target.waitFor(1);
      const renewal = verify(config.secret, first!) as Record<string, any>;
      expect(renewal).toMatchObject({ type: 'subscription.renewed', id: first!.headers['webhook-id'] });
      expect(renewal.data.address.toLowerCase()).toBe(session.address.toLowerCase());

      const canceled = await api.post('/subscriptions/cancel', { token: session.token, body: {} });
      expect(canceled.status).toBe(200);
      const [, second] = await target.waitFor(2);
      expect(verify(config.secret, second!)).toMatchObject({ type: 'subscription.canceled' });
      expect(second!.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);
    });

    it('routes subscription events to operators too, and everything else only to the owner', async () => {
      const user = await login(t.url);
      const op = await login(t.url, operator);
      const userReceiver = await receiver();
      const operatorReceiver = await receiver();
      const userConfig = await save(user, { url: userReceiver.url });
      const operatorConfig = await save(op, { url: operatorReceiver.url });

      const renewed = await recordEvent(t, 'subscription.renewed', user.address.toLowerCase());
      expect(await deliveriesOf(renewed.id)).toEqual([userConfig.id, operatorConfig.id].sort());

      const keyCreated = await recordEvent(t, 'api_key.created', user.address);
      expect(await deliveriesOf(keyCreated.id)).toEqual([userConfig.id]);

      const stranger = newWallet().address;
      const expired = await recordEvent(t, 'subscription.expired', stranger, { reason: 'not_renewed' });
      expect(await deliveriesOf(expired.id)).toEqual([operatorConfig.id]);

      const operatorsOwnKey = await recordEvent(t, 'api_key.revoked', operator.address);
      expect(await deliveriesOf(operatorsOwnKey.id)).toEqual([operatorConfig.id]);

      await userReceiver.waitFor(2);
      await operatorReceiver.waitFor(3);
      const types = (r: Receiver) => r.received.map((x) => JSON.parse(x.body).type).sort();
      expect(types(userReceiver)).toEqual(['api_key.created', 'subscription.renewed']);
      expect(types(operatorReceiver)).toEqual([
        'api_key.revoked',
        'subscription.expired',
        'subscription.renewed',
      ]);
    });

    it('sends nothing for a change whose transaction rolled back', async () => {
      const session = await login(t.url);
      const target = await receiver();
      const config = await save(session, { url: target.url });

      let recorded: RecordedEvent | undefined;
      await expect(
        t.app.get(Database).transaction(async (tx) => {
          recorded = await t.app.get(EventOutbox).record(tx, {
            type: 'subscription.renewed',
            address: session.address,
            data: {},
            occurredAt: new Date(),
          });
          throw new Error('the change failed after its event was recorded');
        }),
      ).rejects.toThrow('the change failed');

      expect(recorded).toBeDefined();
      expect((await db.query('SELECT 1 FROM events WHERE id = $1', [recorded!.id])).rowCount).toBe(0);
      expect(
        (await db.query('SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1', [config.id])).rowCount,
      ).toBe(0);
      await sleep(1_000);
      expect(target.received).toHaveLength(0);
    });

    it('retries a failed delivery about 5 s later with the same webhook-id, then succeeds', async () => {
      const session = await login(t.url);
      const flaky = await receiver((index) =>
        index === 0 ? { status: 503, body: 'busy' } : { status: 204 },
      );
      const config = await save(session, { url: flaky.url });
      const event = await recordEvent(t, 'api_key.created', session.address, { id: 'k1' });

      const [first, second] = await flaky.waitFor(2, 15_000);
      expect(first!.headers['webhook-id']).toBe(event.id);
      expect(second!.headers['webhook-id']).toBe(event.id);
      expect(second!.body).toBe(first!.body);
      expect(verify(config.secret, second!)).toMatchObject({ id: event.id });
      const gap = second!.at - first!.at;
      expect(gap).toBeGreaterThanOrEqual(3_900);
      expect(gap).toBeLessThan(9_000);

      const log = await eventually(
        session,
        `/webhooks/deliveries?webhookId=${config.id}`,
        (b) => b.length === 2 && b[0].deliveryStatus === 'succeeded',
      );
      expect(log.map((a: any) => [a.success, a.statusCode, a.error])).toEqual([
        [true, 204, null],
        [false, 503, 'http_status: 503'],
      ]);
      // A loopback receiver (allowed by WEBHOOK_ALLOW_PRIVATE): its answer is not kept.
      expect(log[1].responseBody).toBeNull();
      // A success ends the failing streak.
      const [listed] = (await api.get('/webhooks', { token: session.token })).body;
      expect(listed.failingSince).toBeNull();
    }, 30_000);

    it('never reads back the answer of a receiver on a private or loopback address', async () => {
      const session = await login(t.url);
      const internal = await receiver(() => ({
        status: 500,
        body: '{"internal":"database password is hunter2"}',
      }));
      const config = await save(session, { url: internal.url });
      const tested = await api.post('/webhooks/test', { token: session.token, body: { id: config.id } });
      expect(tested.status).toBe(200);
      await internal.waitFor(1);
      const log = await eventually(
        session,
        `/webhooks/deliveries?webhookId=${config.id}`,
        (b) => b.length > 0,
      );
      expect(log[0]).toMatchObject({ success: false, statusCode: 500, responseBody: null });
      const stored = await db.query('SELECT response_body FROM webhook_attempts WHERE endpoint_id = $1', [
        config.id,
      ]);
      expect(stored.rows).toEqual([{ response_body: null }]);
      expect(JSON.stringify(log)).not.toContain('hunter2');
    });

    it('schedules the retry after a failure, marking the configuration failing', async () => {
      const session = await login(t.url);
      const down = await receiver(() => ({ status: 500, headers: { 'retry-after': '120' } }));
      const config = await save(session, { url: down.url });
      await recordEvent(t, 'api_key.created', session.address);
      await down.waitFor(1);

      const attempts = await eventually(
        session,
        `/webhooks/deliveries?webhookId=${config.id}`,
        (b) => b.length === 1,
      );
      expect(attempts[0]).toMatchObject({ success: false, statusCode: 500, deliveryStatus: 'pending' });
      // Retry-After: 120 lengthens the 5 s wait.
      const wait =
        new Date(attempts[0].nextAttemptAt).getTime() - new Date(attempts[0].attemptedAt).getTime();
      expect(wait).toBeGreaterThan(115_000);
      expect(wait).toBeLessThan(125_000);
      const [listed] = (await api.get('/webhooks', { token: session.token })).body;
      expect(listed).toMatchObject({ enabled: true, disabledReason: null, failingSince: expect.any(String) });
    });

    it('disables a configuration at once on 410 Gone', async () => {
      const session = await login(t.url);
      const gone = await receiver(() => ({ status: 410 }));
      const config = await save(session, { url: gone.url });
      await recordEvent(t, 'api_key.created', session.address);
      await gone.waitFor(1);
      const [listed] = await eventually(session, '/webhooks', (b) => b[0].enabled === false);
      expect(listed).toMatchObject({ id: config.id, enabled: false, disabledReason: 'gone' });
      const [attempt] = await eventually(session, '/webhooks/deliveries', (b) => b.length === 1);
      expect(attempt).toMatchObject({ statusCode: 410, deliveryStatus: 'failed', nextAttemptAt: null });

      const later = await recordEvent(t, 'api_key.created', session.address);
      expect(await deliveriesOf(later.id)).toEqual([]);

      // Switching it back on starts afresh.
      const reenabled = await save(session, { id: config.id, url: gone.url, enabled: true });
      expect(reenabled).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    });

    it('disables a configuration after five days of nothing but failures', async () => {
      const session = await login(t.url);
      const down = await receiver(() => ({ status: 500 }));
      const config = await save(session, { url: down.url });
      await db.query(
        `UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`,
        [config.id],
      );
      await recordEvent(t, 'api_key.created', session.address);
      await down.waitFor(1);
      const [listed] = await eventually(session, '/webhooks', (b) => b[0].enabled === false);
      expect(listed.disabledReason).toBe('failing');
      const [attempt] = await eventually(session, '/webhooks/deliveries', (b) => b.length === 1);
      expect(attempt.deliveryStatus).toBe('failed');
    });

    it('marks a delivery failed after its last scheduled attempt', async () => {
      const session = await login(t.url);
      const down = await receiver(() => ({ status: 502 }));
      const config = await save(session, { url: down.url });
      const event = await recordEvent(t, 'api_key.created', session.address);
      await down.waitFor(1);
      await eventually(session, '/webhooks/deliveries', (b) => b[0]?.deliveryStatus === 'pending');
      // Fast-forward: seven attempts have failed, and the eighth and last is due now.
      await db.query(
        `UPDATE webhook_deliveries SET attempt_count = 7, next_attempt_at = now() WHERE event_id = $1`,
        [event.id],
      );
      await down.waitFor(2);
      await eventually(session, '/webhooks/deliveries', (b) => b[0]?.deliveryStatus === 'failed');
      const { rows } = await db.query(
        'SELECT attempt_count, next_attempt_at FROM webhook_deliveries WHERE event_id = $1',
        [event.id],
      );
      expect(rows[0]).toEqual({ attempt_count: 8, next_attempt_at: null });
      const [listed] = (await api.get('/webhooks', { token: session.token })).body;
      expect(listed).toMatchObject({ id: config.id, enabled: true });
    });

    it('re-sends one delivery on request, with the same webhook-id', async () => {
      const owner = await login(t.url);
      const other = await login(t.url);
      const target = await receiver();
      const config = await save(owner, { url: target.url });
      const event = await recordEvent(t, 'api_key.revoked', owner.address);
      const [first] = await target.waitFor(1);
      const [attempt] = await eventually(owner, '/webhooks/deliveries', (b) => b.length === 1);
      const deliveryId = attempt.deliveryId;

      const retried = await api.post(`/webhooks/deliveries/${deliveryId}/retry`, { token: owner.token });
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({
        deliveryId,
        webhookId: config.id,
        url: target.url,
        success: true,
        statusCode: 200,
        durationMs: expect.any(Number),
        error: null,
        status: 'succeeded',
      });
      const [, second] = await target.waitFor(2);
      expect(second!.headers['webhook-id']).toBe(event.id);
      expect(second!.body).toBe(first!.body);
      expect(verify(config.secret, second!)).toMatchObject({ id: event.id });

      const foreign = await api.post(`/webhooks/deliveries/${deliveryId}/retry`, { token: other.token });
      expect(foreign.status).toBe(404);
      expect(foreign.body.details.code).toBe('webhook_delivery_not_found');
      const malformed = await api.post('/webhooks/deliveries/not-a-uuid/retry', { token: owner.token });
      expect(malformed.status).toBe(404);
      expect((await api.get('/webhooks/deliveries', { token: other.token })).body).toEqual([]);

      // Every attempt is a row of the delivery log: re-sends stop at the delivery's attempt limit.
      for (let attempts = 2; attempts < 50; attempts++) {
        const resent = await api.post(`/webhooks/deliveries/${deliveryId}/retry`, { token: owner.token });
        expect(resent.status).toBe(200);
      }
      const exhausted = await api.post(`/webhooks/deliveries/${deliveryId}/retry`, { token: owner.token });
      expect(exhausted.status).toBe(400);
      expect(exhausted.body.details).toEqual({ code: 'webhook_delivery_attempt_limit_reached', limit: 50 });
    });

    it('signs with both secrets while a rotation overlaps, then with the new one only', async () => {
      const session = await login(t.url);
      const target = await receiver();
      const created = await save(session, { url: target.url });
      const rotated = await save(session, { id: created.id, url: target.url, rotateSecret: true });
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.secretPrefix).toBe(rotated.secret.slice(0, 10));

      await api.post('/webhooks/test', { token: session.token, body: { id: created.id } });
      const [overlapping] = await target.waitFor(1);
      expect(String(overlapping!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(() => verify(created.secret, overlapping!)).not.toThrow();
      expect(() => verify(rotated.secret, overlapping!)).not.toThrow();

      await db.query(
        `UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
        [created.id],
      );
      await api.post('/webhooks/test', { token: session.token, body: { id: created.id } });
      const [, after] = await target.waitFor(2);
      expect(String(after!.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(() => verify(rotated.secret, after!)).not.toThrow();
      expect(() => verify(created.secret, after!)).toThrow();
    });
  });
});

describe('webhook delivery across restarts', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  /** Instance A runs no workers: it records an event and stops before anything is delivered. */
  async function recordWithoutWorkers(): Promise<{ a: TestApp; event: RecordedEvent; secret: string }> {
    const a = await startTestApp({ env: { ...LOOPBACK_ENV, WEBHOOK_WORKERS: 'false' } });
    const session = await login(a.url);
    const config = await http(a.url).post('/webhooks', { token: session.token, body: { url: receiver.url } });
    const event = await recordEvent(a, 'subscription.renewed', session.address, { n: 1 });
    return { a, event, secret: config.body.secret };
  }

  /**
   * Leaves the database as a crash would (`damage`, with the delivery overdue), then starts instance B with workers
   * and returns what the receiver got.
   */
  async function restartAfter(
    a: TestApp,
    event: RecordedEvent,
    damage?: (client: pg.Client) => Promise<void>,
  ): Promise<Received> {
    await a.close();
    if (damage) {
      const client = new pg.Client({ connectionString: a.databaseUrl });
      await client.connect();
      try {
        await damage(client);
        await client.query(
          `UPDATE webhook_deliveries SET next_attempt_at = now() - interval '2 minutes' WHERE event_id = $1`,
          [event.id],
        );
      } finally {
        await client.end();
      }
    }
    const b = await startTestApp({ keepData: true, env: LOOPBACK_ENV });
    try {
      const [received] = await receiver.waitFor(1);
      expect(received!.headers['webhook-id']).toBe(event.id);
      return received!;
    } finally {
      await b.close();
    }
  }

  beforeEach(() => {
    receiver.received.length = 0;
  });

  it('delivers an event recorded by an instance without workers once a worker starts', async () => {
    const { a, event, secret } = await recordWithoutWorkers();
    await sleep(500);
    expect(receiver.received).toHaveLength(0);
    const received = await restartAfter(a, event);
    expect(verify(secret, received)).toMatchObject({ id: event.id, type: 'subscription.renewed' });
  });

  it('delivers an event whose claim was held by a worker that died, once the claim has run out', async () => {
    const { a, event } = await recordWithoutWorkers();
    // What a crash mid-attempt leaves: the delivery claimed by a process that is gone, its lease now over.
    await restartAfter(a, event, async (client) => {
      const claimed = await client.query(
        `UPDATE webhook_deliveries SET locked_until = now() - interval '1 second' WHERE event_id = $1`,
        [event.id],
      );
      expect(claimed.rowCount).toBe(1);
    });
  });

  it('shares a backlog between two instances with workers, delivering each event once', async () => {
    const a = await startTestApp({ env: { ...LOOPBACK_ENV, WEBHOOK_WORKERS: 'false' } });
    const session = await login(a.url);
    await http(a.url).post('/webhooks', { token: session.token, body: { url: receiver.url } });
    // More than one claim's worth, so both instances claim batches from the same backlog at once.
    const events: RecordedEvent[] = [];
    for (let n = 0; n < 150; n++)
      events.push(await recordEvent(a, 'subscription.renewed', session.address, { n }));
    await a.close();

    const [b, c] = await Promise.all([
      startTestApp({ keepData: true, env: LOOPBACK_ENV }),
      startTestApp({ keepData: true, env: LOOPBACK_ENV }),
    ]);
    try {
      await receiver.waitFor(events.length, 30_000);
      // Give a duplicate, if either instance were to send one, the time to arrive.
      await sleep(1500);
      const ids = receiver.received.map((request) => String(request.headers['webhook-id']));
      expect(ids).toHaveLength(events.length);
      expect(new Set(ids)).toEqual(new Set(events.map((event) => event.id)));
    } finally {
      await Promise.all([b.close(), c.close()]);
    }
  }, 60_000);

  it('is delivered by a standalone worker process (npm run start:worker), which stops cleanly', async () => {
    const { a, event, secret } = await recordWithoutWorkers();
    await a.close();
    const worker = await startWorkerProcess(a.databaseUrl, LOOPBACK_ENV);
    try {
      const [received] = await receiver.waitFor(1, 20_000);
      expect(verify(secret, received!)).toMatchObject({ id: event.id, type: 'subscription.renewed' });
    } finally {
      expect(await worker.kill('SIGTERM')).toBe(0);
    }
  }, 60_000);
});
