import { http } from './utils/http.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

const PERIOD = 3600;
const PRO = {
  id: 'pro',
  name: 'Pro',
  periodSeconds: 60,
  pricePerPeriod: '10',
  features: ['api.calls', 'export.csv'],
};
const BASIC = {
  id: 'basic',
  name: 'Basic',
  periodSeconds: 120,
  pricePerPeriod: '5',
  features: ['api.calls'],
};
const DEFAULT_FIELDS = {
  plan: { id: 'default', name: 'Default' },
  features: [],
  trialEnd: null,
  graceEndsAt: null,
  pendingPlan: null,
};

const seconds = (from: string, to: string): number => (Date.parse(to) - Date.parse(from)) / 1000;

describe('subscriptions on plans', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let operator: WalletSession;
  let api: ReturnType<typeof http>;

  const renew = (session: WalletSession, body: unknown = {}) =>
    api.post('/subscriptions/renew', { token: session.token, body });

  beforeAll(async () => {
    t = await startTestApp({
      env: { OPERATOR_ADDRESSES: operatorWallet.address, SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD) },
    });
    api = http(t.url);
    operator = await login(t.url, operatorWallet);
    for (const plan of [PRO, BASIC]) {
      expect((await api.post('/plans', { token: operator.token, body: plan })).status).toBe(200);
    }
  });
  afterAll(() => t.close());

  it("keeps a wallet that names no plan on `default`: the settings' period, no features", async () => {
    const wallet = await login(t.url);
    const none = await api.get('/subscriptions/status', { token: wallet.token });
    expect(none.body).toMatchObject({ status: 'none', ...DEFAULT_FIELDS });
    const renewed = await renew(wallet);
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ status: 'active', ...DEFAULT_FIELDS });
    expect(seconds(renewed.body.currentPeriodStart, renewed.body.currentPeriodEnd)).toBe(PERIOD);
  });

  it('subscribes to a plan for its period, shows its features, and renews it without naming it', async () => {
    const wallet = await login(t.url);
    const subscribed = await renew(wallet, { plan: 'pro' });
    expect(subscribed.status).toBe(200);
    expect(subscribed.body).toMatchObject({
      status: 'active',
      plan: { id: 'pro', name: 'Pro' },
      features: ['api.calls', 'export.csv'],
      trialEnd: null,
      pendingPlan: null,
    });
    expect(seconds(subscribed.body.currentPeriodStart, subscribed.body.currentPeriodEnd)).toBe(60);
    expect((await api.get('/subscriptions/status', { token: wallet.token })).body).toEqual(subscribed.body);

    const again = await renew(wallet);
    expect(again.body.plan).toEqual({ id: 'pro', name: 'Pro' });
    expect(seconds(subscribed.body.currentPeriodEnd, again.body.currentPeriodEnd)).toBe(60);
    // Naming the plan it is on is a renewal too.
    const named = await renew(wallet, { plan: 'pro' });
    expect(seconds(again.body.currentPeriodEnd, named.body.currentPeriodEnd)).toBe(60);
  });

  it('refuses another plan while active (use change-plan), an unknown plan, and leaves the row as it was', async () => {
    const wallet = await login(t.url);
    const subscribed = await renew(wallet, { plan: 'basic' });
    expect(await renew(wallet, { plan: 'pro' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_change_required' } },
    });
    expect(await renew(wallet, { plan: 'default' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_change_required' } },
    });
    for (const plan of ['nope', 'Pro', '-', 'x'.repeat(32)]) {
      expect(await renew(wallet, { plan })).toMatchObject({
        status: 404,
        body: { details: { code: 'plan_not_found' } },
      });
    }
    for (const plan of ['x'.repeat(33), 7, true, ['pro'], { id: 'pro' }]) {
      expect((await renew(wallet, { plan })).status).toBe(400);
    }
    expect((await api.get('/subscriptions/status', { token: wallet.token })).body).toEqual(subscribed.body);
  });

  it('fixes the price and period of a plan once subscribed to (409 plan_in_use), not its name or features', async () => {
    const plan = { id: 'locked', name: 'Locked', periodSeconds: 60, pricePerPeriod: '3' };
    expect((await api.post('/plans', { token: operator.token, body: plan })).status).toBe(200);
    const patch = (body: unknown) => api.send('PATCH', '/plans/locked', { token: operator.token, body });
    expect((await patch({ pricePerPeriod: '4' })).status).toBe(200);
    const wallet = await login(t.url);
    expect((await renew(wallet, { plan: 'locked' })).status).toBe(200);
    for (const change of [{ pricePerPeriod: '5' }, { periodSeconds: 61 }]) {
      expect(await patch(change)).toMatchObject({ status: 409, body: { details: { code: 'plan_in_use' } } });
    }
    expect((await patch({ name: 'Renamed', features: ['new.thing'] })).status).toBe(200);
    const status = await api.get('/subscriptions/status', { token: wallet.token });
    expect(status.body).toMatchObject({ plan: { id: 'locked', name: 'Renamed' }, features: ['new.thing'] });
  });

  it('refuses an archived plan to a new subscriber (409 plan_archived), and renews it for the one on it', async () => {
    const plan = { id: 'old', name: 'Old', periodSeconds: 60, pricePerPeriod: '1', features: ['legacy'] };
    expect((await api.post('/plans', { token: operator.token, body: plan })).status).toBe(200);
    const holder = await login(t.url);
    expect((await renew(holder, { plan: 'old' })).status).toBe(200);
    expect((await api.post('/plans/old/archive', { token: operator.token })).status).toBe(200);

    const newcomer = await login(t.url);
    expect(await renew(newcomer, { plan: 'old' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_archived' } },
    });
    expect((await api.get('/subscriptions/status', { token: newcomer.token })).body.status).toBe('none');
    const kept = await renew(holder);
    expect(kept).toMatchObject({ status: 200, body: { plan: { id: 'old' }, features: ['legacy'] } });
    expect((await renew(holder, { plan: 'old' })).status).toBe(200);
  });

  it('lets an operator subscribe another wallet to a plan, and replays a key with its plan', async () => {
    const wallet = newWallet();
    const headers = { 'Idempotency-Key': 'plans-replay-1' };
    const body = { address: wallet.address, plan: 'basic' };
    const first = await api.post('/subscriptions/renew', { token: operator.token, body, headers });
    expect(first).toMatchObject({ status: 200, body: { plan: { id: 'basic' }, features: ['api.calls'] } });
    const replay = await api.post('/subscriptions/renew', { token: operator.token, body, headers });
    expect(replay.body).toEqual(first.body);
    const other = await api.post('/subscriptions/renew', {
      token: operator.token,
      body: { address: wallet.address, plan: 'pro' },
      headers,
    });
    expect(other).toMatchObject({ status: 400, body: { details: { code: 'idempotency_key_reused' } } });
  });

  it('tells of each change of features with entitlements.updated, and names the plan in subscription.renewed', async () => {
    const wallet = await login(t.url);
    const events = async (type: string) =>
      (await api.get(`/events?type=${type}`, { token: wallet.token })).body as {
        data: Record<string, unknown>;
      }[];
    // `default` has no features: subscribing to it changes none.
    expect((await renew(wallet)).status).toBe(200);
    expect(await events('entitlements.updated')).toEqual([]);
    expect(
      (await api.post('/subscriptions/cancel', { token: wallet.token, body: { immediate: true } })).status,
    ).toBe(200);
    expect(await events('entitlements.updated')).toEqual([]);

    const subscribed = await renew(wallet, { plan: 'pro' });
    expect(subscribed.status).toBe(200);
    const renewed = await events('subscription.renewed');
    expect(renewed[0]!.data).toMatchObject({ plan: { id: 'pro', name: 'Pro' }, features: PRO.features });
    expect((await events('entitlements.updated')).map((event) => event.data)).toEqual([
      { address: wallet.address, plan: { id: 'pro', name: 'Pro' }, features: PRO.features },
    ]);
    // A renewal on the same plan changes no feature.
    expect((await renew(wallet)).status).toBe(200);
    expect(await events('entitlements.updated')).toHaveLength(1);

    expect(
      (await api.post('/subscriptions/cancel', { token: wallet.token, body: { immediate: true } })).status,
    ).toBe(200);
    const updated = await events('entitlements.updated');
    expect(updated.map((event) => event.data)).toEqual([
      { address: wallet.address, plan: { id: 'pro', name: 'Pro' }, features: [] },
      { address: wallet.address, plan: { id: 'pro', name: 'Pro' }, features: PRO.features },
    ]);
  });

  it('ends the features when a period runs out, once (the expiry sweep)', async () => {
    const wallet = await login(t.url);
    const quick = { id: 'quick', name: 'Quick', periodSeconds: 2, pricePerPeriod: '0', features: ['fast'] };
    expect((await api.post('/plans', { token: operator.token, body: quick })).status).toBe(200);
    expect((await renew(wallet, { plan: 'quick' })).status).toBe(200);
    const updates = async () =>
      (
        (await api.get('/events?type=entitlements.updated', { token: wallet.token })).body as {
          data: unknown;
        }[]
      ).map((event) => event.data);
    const deadline = Date.now() + 20_000;
    while ((await updates()).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 500));
    expect(await updates()).toEqual([
      { address: wallet.address, plan: { id: 'quick', name: 'Quick' }, features: [] },
      { address: wallet.address, plan: { id: 'quick', name: 'Quick' }, features: ['fast'] },
    ]);
  });
});
