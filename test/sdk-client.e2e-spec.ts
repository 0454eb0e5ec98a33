import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import {
  apiKey,
  changePlan,
  createTollgateClient,
  entitlement,
  entitlements,
  isTollgateError,
  sessionToken,
  signIn,
  SignInMessageError,
  TollgateConnectionError,
  TollgateError,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type TollgateClient,
  type TollgateClientOptions,
} from '../sdk/src/index.js';
import { Receiver } from './utils/receiver.js';
import { startTcpProxy } from './utils/tcp-proxy.js';
import { startTestApp, TEST_ORIGIN, type TestApp } from './utils/test-app.js';
import { newWallet } from './utils/wallet.js';

/** Every operation of docs/openapi.yaml, as openapi-fetch names it: `GET /webhooks/deliveries`. */
function documentedOperations(): string[] {
  const document = yaml.load(readFileSync('docs/openapi.yaml', 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/**
 * The generated client (sdk/) against the real service: each call typed from docs/openapi.yaml, every operation
 * of that document called at least once (the last test checks), sign-in through `signIn` and a delivered webhook
 * checked with `verifyWebhook`.
 */
/** The test instances sign in under one public origin, not the loopback address they listen on. */
const SIGNED_IN_AS = { origin: TEST_ORIGIN.AUTH_URI };

describe('@tollgate/client against the service', () => {
  const operatorWallet = newWallet();
  const called = new Set<string>();
  let t: TestApp;
  let receiver: Receiver;
  let connect: (options?: Omit<TollgateClientOptions, 'baseUrl'>) => TollgateClient;
  let owner: Awaited<ReturnType<typeof signIn>>;
  let asOwner: TollgateClient;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        WEBHOOK_WORKERS: 'false',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        OPERATOR_ADDRESSES: operatorWallet.address,
      },
    });
    receiver = await Receiver.start();
    connect = (options = {}) => {
      const client = createTollgateClient({ ...options, baseUrl: t.url });
      client.use({
        onRequest({ request, schemaPath }) {
          called.add(`${request.method} ${schemaPath}`);
        },
      });
      return client;
    };
    owner = await signIn(connect(), newWallet(), SIGNED_IN_AS);
    asOwner = connect({ credential: owner });
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('signs in with a viem account: a session credential with its expiry, accepted by the service', async () => {
    expect(owner.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(owner.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const session = await unwrap(asOwner.GET('/auth/session'));
    expect(session).toMatchObject({ address: owner.address, via: 'jwt', operator: false });
  });

  it('reads the health, liveness and readiness without a credential', async () => {
    const anonymous = connect();
    expect((await unwrap(anonymous.GET('/health'))).status).toBe('ok');
    expect((await unwrap(anonymous.GET('/health/live'))).status).toBe('ok');
    expect((await unwrap(anonymous.GET('/health/ready'))).status).toBe('ok');
  });

  it('reads the plan, renews, cancels and reads status and history (own address by default)', async () => {
    const plan = await unwrap(connect().GET('/subscriptions/plan'));
    expect(plan).toMatchObject({ gateway: 'free', erc20: null });

    const none = await unwrap(asOwner.GET('/subscriptions/status'));
    expect(none).toMatchObject({ address: owner.address, status: 'none', active: false });
    const renewed = await unwrap(
      asOwner.POST('/subscriptions/renew', {
        body: {},
        params: { header: { 'Idempotency-Key': 'sdk-renew-1' } },
      }),
    );
    expect(renewed).toMatchObject({ status: 'active', active: true });
    const canceled = await unwrap(asOwner.POST('/subscriptions/cancel', { body: { immediate: false } }));
    expect(canceled).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

    const status = await unwrap(
      asOwner.GET('/subscriptions/status', { params: { query: { address: owner.address } } }),
    );
    expect(status.cancelAtPeriodEnd).toBe(true);
    const history = await unwrap(asOwner.GET('/subscriptions/history'));
    expect(history.map((event) => event.type)).toEqual(['canceled', 'renewed']);
    const events = await unwrap(
      asOwner.GET('/events', {
        params: { query: { type: ['subscription.renewed', 'subscription.canceled'] } },
      }),
    );
    expect(events.map((event) => event.type)).toEqual(['subscription.canceled', 'subscription.renewed']);
  });

  it('enables automatic renewal, finds nothing to retry, and disables it', async () => {
    const wallet = await signIn(connect(), newWallet(), SIGNED_IN_AS);
    const asWallet = connect({ credential: wallet });
    await unwrap(asWallet.POST('/subscriptions/renew', { body: {} }));
    const enabled = await unwrap(asWallet.POST('/subscriptions/auto-renew', { body: {} }));
    expect(enabled.autoRenew).toMatchObject({ enabled: true, amount: '0', token: null });
    const retried = await unwrap(asWallet.POST('/subscriptions/auto-renew/retry', { body: {} })).catch(
      (error: unknown) => error,
    );
    expect(retried).toMatchObject({ status: 409, code: 'auto_renew_nothing_to_retry' });
    const disabled = await unwrap(asWallet.POST('/subscriptions/auto-renew/disable', { body: {} }));
    expect(disabled.autoRenew.enabled).toBe(false);
  });

  it('creates keys on both paths, lists them a page at a time, revokes one; a key reads and renews', async () => {
    const first = await unwrap(
      asOwner.POST('/api-keys', { body: { label: 'reader', scopes: ['READ_ONLY'] } }),
    );
    const second = await unwrap(
      asOwner.POST('/api-keys/create', { body: { label: 'manager', scopes: ['SUBSCRIPTIONS_MANAGE'] } }),
    );

    const asReader = connect({ credential: apiKey(first.key) });
    const read = await unwrap(asReader.GET('/subscriptions/status'));
    expect(read.address).toBe(owner.address);
    const asManager = connect({ credential: apiKey(second.key) });
    expect((await unwrap(asManager.POST('/subscriptions/renew', { body: {} }))).active).toBe(true);

    const page1 = await asOwner.GET('/api-keys/list', { params: { query: { limit: 1 } } });
    expect(page1.data!.map((key) => key.id)).toEqual([second.id]);
    const cursor = page1.response.headers.get('x-next-cursor');
    expect(cursor).toEqual(expect.any(String));
    const page2 = await asOwner.GET('/api-keys/list', { params: { query: { limit: 1, cursor: cursor! } } });
    expect(page2.data!.map((key) => key.id)).toEqual([first.id]);
    expect(page2.response.headers.get('x-next-cursor')).toBeNull();

    const revoked = await unwrap(asOwner.POST('/api-keys/revoke', { body: { id: first.id } }));
    expect(revoked).toMatchObject({ id: first.id, revoked: true });
    const refused = await unwrap(asReader.GET('/subscriptions/status')).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 401, code: 'api_key_revoked' });

    const usage = await unwrap(asOwner.GET('/api-keys/{id}/usage', { params: { path: { id: second.id } } }));
    expect(usage.days).toHaveLength(30);
    expect(usage.days[0]!.requests).toBe(1);
  });

  it('configures a webhook, gets a delivery verified by verifyWebhook, re-sends it, then deletes the webhook', async () => {
    const saved = await unwrap(
      asOwner.POST('/webhooks', { body: { url: receiver.url, events: ['webhook.test'] } }),
    );
    expect(saved.secret).toMatch(/^whsec_/);
    expect((await unwrap(asOwner.GET('/webhooks'))).map((webhook) => webhook.id)).toEqual([saved.id]);

    const tested = await unwrap(asOwner.POST('/webhooks/test', { body: { id: saved.id } }));
    expect(tested.deliveries).toMatchObject([{ webhookId: saved.id, success: true, statusCode: 200 }]);
    const [delivered] = await receiver.waitFor(1);
    const event = await verifyWebhook(saved.secret!, delivered!.headers, delivered!.body);
    expect(event.type).toBe('webhook.test');
    if (event.type === 'webhook.test') expect(event.data.address).toBe(owner.address);
    await expect(
      verifyWebhook(saved.secret!, delivered!.headers, delivered!.body.replace('Test', 'Fake')),
    ).rejects.toBeInstanceOf(WebhookVerificationError);

    const retried = await unwrap(
      asOwner.POST('/webhooks/deliveries/{id}/retry', {
        params: { path: { id: tested.deliveries[0]!.deliveryId } },
      }),
    );
    expect(retried.success).toBe(true);
    const [, again] = await receiver.waitFor(2);
    expect((await verifyWebhook(saved.secret!, again!.headers, again!.body)).id).toBe(event.id);

    const log = await asOwner.GET('/webhooks/deliveries', {
      params: { query: { webhookId: saved.id, limit: 1 } },
    });
    expect(log.data).toHaveLength(1);
    const rest = await unwrap(
      asOwner.GET('/webhooks/deliveries', {
        params: { query: { cursor: log.response.headers.get('x-next-cursor')! } },
      }),
    );
    expect([...log.data!, ...rest].map((attempt) => attempt.eventId)).toEqual([event.id, event.id]);

    const deleted = await asOwner.DELETE('/webhooks/{id}', { params: { path: { id: saved.id } } });
    expect(deleted.response.status).toBe(204);
    expect(await unwrap(asOwner.GET('/webhooks'))).toEqual([]);
  });

  it('throws typed errors with the status, error and details.code of a refusal', async () => {
    const anonymous = connect();
    const thrown = await unwrap(
      anonymous.GET('/subscriptions/status', { params: { query: { address: owner.address } } }),
    ).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateError);
    expect(thrown).toMatchObject({ status: 401, code: 'missing_credentials', error: expect.any(String) });
    expect(isTollgateError(thrown, 'missing_credentials')).toBe(true);
    expect((thrown as TollgateError).requestId).toEqual(expect.any(String));

    const badCursor = await unwrap(
      asOwner.GET('/subscriptions/history', { params: { query: { cursor: 'not-a-cursor' } } }),
    ).catch((error: unknown) => error);
    expect(badCursor).toMatchObject({ status: 400, code: 'invalid_cursor' });
  });

  it('lets an operator act on another address, and ends a session with logout', async () => {
    const operator = await signIn(connect(), operatorWallet, SIGNED_IN_AS);
    const asOperator = connect({ credential: sessionToken(operator.token, operator.expiresAt) });
    const other = await unwrap(
      asOperator.GET('/subscriptions/history', { params: { query: { address: owner.address, limit: 1 } } }),
    );
    expect(other).toHaveLength(1);

    expect(await unwrap(asOperator.POST('/auth/logout'))).toEqual({ revoked: true });
    const after = await unwrap(asOperator.GET('/auth/session')).catch((error: unknown) => error);
    expect(after).toMatchObject({ status: 401, code: 'token_revoked' });
  });

  it("refuses to sign the service's challenge relayed by another address, and signs it where the service is", async () => {
    // A relay on another port (a mistyped URL, a hostile server) passes the real challenge through unchanged.
    const relay = await startTcpProxy('127.0.0.1', Number(new URL(t.url).port));
    const wallet = newWallet();
    const signMessage = jest.fn(wallet.signMessage);
    const watched = { address: wallet.address, signMessage };
    try {
      const relayed = await signIn(`http://127.0.0.1:${relay.port}`, watched).catch(
        (error: unknown) => error,
      );
      expect(relayed).toBeInstanceOf(SignInMessageError);
      expect(relayed).toMatchObject({ code: 'wrong_domain' });
      expect((relayed as Error).message).toContain(`is for "localhost:3000", not 127.0.0.1:${relay.port}`);
      expect(signMessage).not.toHaveBeenCalled();
    } finally {
      await relay.close();
    }
    const session = await signIn(connect(), watched, SIGNED_IN_AS);
    expect(signMessage).toHaveBeenCalledTimes(1);
    expect(await unwrap(connect({ credential: session }).GET('/auth/session'))).toMatchObject({
      address: wallet.address,
    });
  });

  it('signs a wallet out everywhere', async () => {
    const wallet = newWallet();
    const first = await signIn(connect(), wallet, SIGNED_IN_AS);
    const second = await signIn(connect(), wallet, SIGNED_IN_AS);
    const asFirst = connect({ credential: sessionToken(first.token, first.expiresAt) });
    const asSecond = connect({ credential: sessionToken(second.token, second.expiresAt) });
    await unwrap(asFirst.POST('/auth/logout-all'));
    for (const session of [asFirst, asSecond]) {
      const after = await unwrap(session.GET('/auth/session')).catch((error: unknown) => error);
      expect(after).toMatchObject({ status: 401, code: 'token_revoked' });
    }
  });

  it('retries a renew whose answer was lost after the service committed it, with the same key: one period, once', async () => {
    const plan = await unwrap(connect().GET('/subscriptions/plan'));
    const session = await signIn(connect(), newWallet(), SIGNED_IN_AS);
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(t.url).port));
    try {
      const attempts: Request[] = [];
      const viaProxy = createTollgateClient({
        baseUrl: `http://127.0.0.1:${proxy.port}`,
        credential: session,
        fetch: (request) => {
          attempts.push(request);
          return fetch(request);
        },
      });
      const dropped = proxy.dropNextAnswer();
      const renewed = await unwrap(viaProxy.POST('/subscriptions/renew', { body: {} }));
      await dropped;

      expect(attempts).toHaveLength(2);
      const [first, retry] = attempts.map((request) => request.headers.get('idempotency-key'));
      expect(first).toEqual(expect.any(String));
      expect(retry).toBe(first);
      expect(renewed).toMatchObject({ status: 'active', active: true });
      const period = Date.parse(renewed.currentPeriodEnd!) - Date.parse(renewed.currentPeriodStart!);
      expect(period).toBe(plan.periodSeconds * 1000);
      const asSession = connect({ credential: session });
      const history = await unwrap(asSession.GET('/subscriptions/history'));
      expect(history.map((event) => event.type)).toEqual(['renewed']);
      const status = await unwrap(asSession.GET('/subscriptions/status'));
      expect(status.currentPeriodEnd).toBe(renewed.currentPeriodEnd);
    } finally {
      await proxy.close();
    }
  });

  it('answers an unreachable service with a TollgateConnectionError, not a bare fetch failure', async () => {
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(t.url).port));
    await proxy.cut();
    const offline = createTollgateClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, maxRetries: 0 });
    const thrown = await unwrap(offline.GET('/health')).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateConnectionError);
    expect(isTollgateError(thrown, 'connection_failed')).toBe(true);
  });

  it('pages through every key with paginate', async () => {
    const wallet = await signIn(connect(), newWallet(), SIGNED_IN_AS);
    const asWallet = connect({ credential: wallet });
    const created: string[] = [];
    for (const label of ['one', 'two', 'three']) {
      created.unshift(
        (await unwrap(asWallet.POST('/api-keys', { body: { label, scopes: ['READ_ONLY'] } }))).id,
      );
    }
    const listed: string[] = [];
    for await (const key of asWallet.paginate('/api-keys/list', { params: { query: { limit: 2 } } })) {
      listed.push(key.id);
    }
    expect(listed).toEqual(created);
  });

  it('reads plans without a credential; an operator creates, changes and archives one', async () => {
    const anonymous = connect();
    const [first] = await unwrap(anonymous.GET('/plans'));
    expect(first).toMatchObject({ id: 'default', pricePerPeriod: '0', offered: true });
    const asOperator = connect({ credential: await signIn(connect(), operatorWallet, SIGNED_IN_AS) });
    const created = await unwrap(
      asOperator.POST('/plans', {
        body: { id: 'team', name: 'Team', periodSeconds: 2_592_000, pricePerPeriod: '25000000' },
      }),
    );
    expect(created).toMatchObject({ id: 'team', features: [], trialSeconds: null });
    const changed = await unwrap(
      asOperator.PATCH('/plans/{id}', {
        params: { path: { id: 'team' } },
        body: { features: ['seats.10'], trialSeconds: 86_400 },
      }),
    );
    expect(changed).toMatchObject({ features: ['seats.10'], trialSeconds: 86_400 });
    const archived = await unwrap(
      asOperator.POST('/plans/{id}/archive', { params: { path: { id: 'team' } } }),
    );
    expect(archived.offered).toBe(false);
    const read = await unwrap(anonymous.GET('/plans/{id}', { params: { path: { id: 'team' } } }));
    expect(read).toEqual(archived);
    const refused = await asOwner.POST('/plans', {
      body: { id: 'mine', name: 'Mine', periodSeconds: 60, pricePerPeriod: '1' },
    });
    expect(refused.error?.details.code).toBe('operator_required');
  });

  it("reads a wallet's entitlements in one call, typed to the answer's shape", async () => {
    const one = await entitlement(asOwner, owner.address, 'export.csv');
    expect(one).toEqual({
      address: owner.address,
      feature: 'export.csv',
      entitled: false,
      plan: { id: 'default', name: 'Default' },
      until: null,
    });
    const all = await entitlements(asOwner);
    expect(all).toMatchObject({ address: owner.address, features: [], until: null });
    const refused = await asOwner.GET('/entitlements', { params: { query: { feature: 'Not A Key' } } });
    expect(refused.error?.details.code).toBe('validation_failed');
  });

  it('changes plan in one call, with an Idempotency-Key of its own', async () => {
    const asOperator = connect({ credential: await signIn(connect(), operatorWallet, SIGNED_IN_AS) });
    for (const [id, pricePerPeriod] of [
      ['cheap', '1'],
      ['dear', '2'],
    ] as const) {
      await unwrap(asOperator.POST('/plans', { body: { id, name: id, periodSeconds: 600, pricePerPeriod } }));
    }
    const wallet = connect({ credential: await signIn(connect(), newWallet(), SIGNED_IN_AS) });
    await unwrap(wallet.POST('/subscriptions/renew', { body: { plan: 'cheap' } }));
    const changed = await changePlan(wallet, 'dear');
    expect(changed).toMatchObject({
      status: 'active',
      plan: { id: 'dear', name: 'dear' },
      pendingPlan: null,
    });
    const scheduled = await changePlan(wallet, 'cheap');
    expect(scheduled.pendingPlan).toMatchObject({ id: 'cheap', effectiveAt: changed.currentPeriodEnd });
    const history = await unwrap(wallet.GET('/subscriptions/history'));
    expect(history.map((entry) => entry.planChange)).toEqual([
      { from: 'dear', to: 'cheap' },
      { from: 'cheap', to: 'dear' },
      null,
    ]);
    const refused = await changePlan(wallet, 'nope').catch((error: unknown) => error);
    expect(isTollgateError(refused, 'plan_not_found')).toBe(true);
  });

  it('called every operation of docs/openapi.yaml', () => {
    const missing = documentedOperations().filter((operation) => !called.has(operation));
    expect(missing).toEqual([]);
  });
});
