import pg from 'pg';
import { http } from './utils/http.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/*
 * POST /subscriptions/change-plan over HTTP: a dearer plan at once with the time left converted (timings to the
 * millisecond the service reports), a cheaper one at the period end, applied once by the sweep of either of two
 * instances, and the events and history of each.
 */

const BASIC = { id: 'basic', name: 'Basic', periodSeconds: 60, pricePerPeriod: '5', features: ['api.calls'] };
const PRO = {
  id: 'pro',
  name: 'Pro',
  periodSeconds: 60,
  pricePerPeriod: '10',
  features: ['api.calls', 'export.csv'],
};
// Short periods for the changes the sweep applies: 6 s at 10, and 6 s at 4 (cheaper).
const FAST = {
  id: 'fast',
  name: 'Fast',
  periodSeconds: 6,
  pricePerPeriod: '10',
  features: ['fast', 'export.csv'],
};
const SLOW = { id: 'slow', name: 'Slow', periodSeconds: 6, pricePerPeriod: '4', features: ['fast'] };

const ms = (iso: string): number => Date.parse(iso);
const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

interface EventBody {
  type: string;
  data: Record<string, any>;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function client(t: TestApp) {
  const api = http(t.url);
  return {
    api,
    renew: (who: WalletSession, body: unknown = {}) =>
      api.post('/subscriptions/renew', { token: who.token, body }),
    change: (who: WalletSession, body: unknown, headers?: Record<string, string>) =>
      api.post('/subscriptions/change-plan', { token: who.token, body, headers }),
    status: async (who: WalletSession) => (await api.get('/subscriptions/status', { token: who.token })).body,
    history: async (who: WalletSession) =>
      (await api.get('/subscriptions/history', { token: who.token })).body as Record<string, any>[],
    /** Oldest first. */
    events: async (who: WalletSession, type: string) =>
      ((await api.get(`/events?type=${type}`, { token: who.token })).body as EventBody[]).reverse(),
  };
}

async function createPlans(t: TestApp, operator: WalletSession, plans: object[]): Promise<void> {
  for (const plan of plans) {
    expect((await http(t.url).post('/plans', { token: operator.token, body: plan })).status).toBe(200);
  }
}

describe('changing plan', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let operator: WalletSession;
  let c: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp({ env: { OPERATOR_ADDRESSES: operatorWallet.address } });
    c = client(t);
    operator = await login(t.url, operatorWallet);
    await createPlans(t, operator, [BASIC, PRO, FAST, SLOW]);
  });
  afterAll(() => t.close());

  it('moves to a dearer plan at once, converting the time left at the two prices per second, rounded down to seconds', async () => {
    const wallet = await login(t.url);
    const basic = (await c.renew(wallet, { plan: 'basic' })).body;
    const changed = await c.change(wallet, { plan: 'pro' });
    expect(changed.status).toBe(200);
    const after = changed.body;
    expect(after).toMatchObject({
      status: 'active',
      plan: { id: 'pro', name: 'Pro' },
      features: PRO.features,
      pendingPlan: null,
    });
    // A new period starts at the change; what was left of Basic (5 per 60 s) is worth half as long on Pro (10 per 60 s).
    const left = ms(basic.currentPeriodEnd) - ms(after.currentPeriodStart);
    expect(left).toBeGreaterThan(0);
    expect(ms(after.currentPeriodEnd) - ms(after.currentPeriodStart)).toBe(
      Math.floor(left / 2 / 1000) * 1000,
    );
    expect(await c.status(wallet)).toEqual(after);

    const [changedEvent] = await c.events(wallet, 'subscription.plan_changed');
    expect(changedEvent!.data).toEqual({
      ...after,
      previousPeriodEnd: basic.currentPeriodEnd,
      previousPlan: { id: 'basic', name: 'Basic' },
      effectiveAt: after.currentPeriodStart,
      scheduled: false,
    });
    expect((await c.events(wallet, 'entitlements.updated')).map((event) => event.data)).toEqual([
      { address: wallet.address, plan: { id: 'basic', name: 'Basic' }, features: BASIC.features },
      { address: wallet.address, plan: { id: 'pro', name: 'Pro' }, features: PRO.features },
    ]);
    const [entry] = await c.history(wallet);
    expect(entry).toMatchObject({
      type: 'plan_changed',
      at: after.currentPeriodStart,
      actor: wallet.address,
      previousPeriodEnd: basic.currentPeriodEnd,
      currentPeriodEnd: after.currentPeriodEnd,
      payment: null,
      planChange: { from: 'basic', to: 'pro' },
    });
  });

  it('schedules a cheaper plan for the period end, and drops it when the current plan is named', async () => {
    const wallet = await login(t.url);
    const pro = (await c.renew(wallet, { plan: 'pro' })).body;
    const scheduled = await c.change(wallet, { plan: 'basic' });
    expect(scheduled).toMatchObject({
      status: 200,
      body: {
        plan: { id: 'pro', name: 'Pro' },
        features: PRO.features,
        currentPeriodStart: pro.currentPeriodStart,
        currentPeriodEnd: pro.currentPeriodEnd,
        pendingPlan: { id: 'basic', name: 'Basic', effectiveAt: pro.currentPeriodEnd },
      },
    });
    // Naming it again changes nothing.
    expect((await c.change(wallet, { plan: 'basic' })).body).toEqual(scheduled.body);
    const dropped = await c.change(wallet, { plan: 'pro' });
    expect(dropped.body).toMatchObject({
      plan: { id: 'pro' },
      pendingPlan: null,
      currentPeriodEnd: pro.currentPeriodEnd,
    });
    // The current plan with nothing scheduled: no change either.
    expect((await c.change(wallet, { plan: 'pro' })).body).toEqual(dropped.body);

    expect((await c.history(wallet)).map((entry) => [entry.type, entry.planChange])).toEqual([
      ['plan_unscheduled', { from: 'pro', to: 'basic' }],
      ['plan_scheduled', { from: 'pro', to: 'basic' }],
      ['renewed', null],
    ]);
    // Neither scheduling nor dropping changed the plan or the features.
    expect(await c.events(wallet, 'subscription.plan_changed')).toEqual([]);
    expect(await c.events(wallet, 'entitlements.updated')).toHaveLength(1);
  });

  it('bills a renewal made while a change is scheduled on the scheduled plan, and refuses the current one', async () => {
    const wallet = await login(t.url);
    const pro = (await c.renew(wallet, { plan: 'pro' })).body;
    const twoMinutes = { ...BASIC, id: 'basic-120', name: 'Basic 120', periodSeconds: 120 };
    await createPlans(t, operator, [twoMinutes]);
    expect((await c.change(wallet, { plan: 'basic-120' })).status).toBe(200);
    const renewed = await c.renew(wallet);
    expect(renewed.status).toBe(200);
    // One period of the scheduled plan after the current end; the change still takes effect at that end.
    expect(ms(renewed.body.currentPeriodEnd) - ms(pro.currentPeriodEnd)).toBe(120_000);
    expect(renewed.body).toMatchObject({
      plan: { id: 'pro' },
      features: PRO.features,
      pendingPlan: { id: 'basic-120', effectiveAt: pro.currentPeriodEnd },
    });
    const [event] = await c.events(wallet, 'subscription.renewed').then((events) => events.slice(-1));
    expect(event!.data).toMatchObject({ plan: { id: 'pro', name: 'Pro' }, pendingPlan: { id: 'basic-120' } });
    expect((await c.renew(wallet, { plan: 'basic-120' })).status).toBe(200);
    expect(await c.renew(wallet, { plan: 'pro' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_change_pending', pendingPlan: 'basic-120' } },
    });
    expect(await c.renew(wallet, { plan: 'basic' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_change_pending' } },
    });
  });

  it('refuses what cannot change: no active subscription, an unknown or archived plan, nothing left to convert', async () => {
    const wallet = await login(t.url);
    expect(await c.change(wallet, { plan: 'pro' })).toMatchObject({
      status: 409,
      body: { details: { code: 'subscription_not_active' } },
    });
    const basic = (await c.renew(wallet, { plan: 'basic' })).body;
    for (const plan of ['nope', 'Pro', '-', 'x'.repeat(32)]) {
      expect(await c.change(wallet, { plan })).toMatchObject({
        status: 404,
        body: { details: { code: 'plan_not_found' } },
      });
    }
    for (const body of [
      {},
      { plan: 'x'.repeat(33) },
      { plan: 7 },
      { plan: null },
      { plan: ['pro'] },
      { plan: 'pro', extra: 1 },
    ]) {
      expect((await c.change(wallet, body)).status).toBe(400);
    }
    const retired = { id: 'retired', name: 'Retired', periodSeconds: 60, pricePerPeriod: '50' };
    await createPlans(t, operator, [retired]);
    expect((await c.api.post('/plans/retired/archive', { token: operator.token })).status).toBe(200);
    expect(await c.change(wallet, { plan: 'retired' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_archived' } },
    });
    // `default` is free here: nothing of its time is worth a second of Pro.
    const free = await login(t.url);
    expect((await c.renew(free)).status).toBe(200);
    expect(await c.change(free, { plan: 'pro' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_change_no_time_left' } },
    });
    expect(await c.status(wallet)).toEqual(basic);
    expect((await c.status(free)).plan).toEqual({ id: 'default', name: 'Default' });

    expect(
      (await c.api.post('/subscriptions/cancel', { token: wallet.token, body: { immediate: true } })).status,
    ).toBe(200);
    expect(await c.change(wallet, { plan: 'pro' })).toMatchObject({
      status: 409,
      body: { details: { code: 'subscription_not_active' } },
    });
  });

  it("keeps another wallet's subscription to operators, and replays an Idempotency-Key", async () => {
    const wallet = await login(t.url);
    const other = await login(t.url);
    expect((await c.renew(wallet, { plan: 'basic' })).status).toBe(200);
    expect(await c.change(other, { plan: 'pro', address: wallet.address })).toMatchObject({
      status: 403,
      body: { details: { code: 'address_forbidden' } },
    });
    const headers = { 'Idempotency-Key': 'change-plan-1' };
    const first = await c.change(operator, { plan: 'pro', address: wallet.address }, headers);
    expect(first).toMatchObject({ status: 200, body: { plan: { id: 'pro' } } });
    const replay = await c.change(operator, { plan: 'pro', address: wallet.address }, headers);
    expect(replay.body).toEqual(first.body);
    expect(await c.events(wallet, 'subscription.plan_changed')).toHaveLength(1);
    expect(await c.change(operator, { plan: 'basic', address: wallet.address }, headers)).toMatchObject({
      status: 400,
      body: { details: { code: 'idempotency_key_reused' } },
    });
    expect((await c.history(wallet))[0]).toMatchObject({ type: 'plan_changed', actor: operator.address });
  });

  it('applies a scheduled change at the period end (the sweep), with its history and events', async () => {
    const renewedFirst = await login(t.url);
    const lapsing = await login(t.url);
    const fast = (await c.renew(renewedFirst, { plan: 'fast' })).body;
    const lapsingFast = (await c.renew(lapsing, { plan: 'fast' })).body;
    for (const who of [renewedFirst, lapsing])
      expect((await c.change(who, { plan: 'slow' })).status).toBe(200);
    const toBare = await login(t.url);
    await createPlans(t, operator, [{ id: 'bare', name: 'Bare', periodSeconds: 6, pricePerPeriod: '1' }]);
    expect((await c.renew(toBare, { plan: 'fast' })).status).toBe(200);
    expect((await c.change(toBare, { plan: 'bare' })).status).toBe(200);
    // One wallet renews before the end: its next period is Slow's.
    const renewed = (await c.renew(renewedFirst)).body;
    expect(ms(renewed.currentPeriodEnd) - ms(fast.currentPeriodEnd)).toBe(6_000);

    await sleepUntil(ms(fast.currentPeriodEnd));
    const [changed] = await waitFor(async () => {
      const events = await c.events(renewedFirst, 'subscription.plan_changed');
      return events.length > 0 ? events : undefined;
    });
    const status = await c.status(renewedFirst);
    expect(status).toMatchObject({
      status: 'active',
      plan: { id: 'slow', name: 'Slow' },
      features: SLOW.features,
      pendingPlan: null,
      currentPeriodEnd: renewed.currentPeriodEnd,
    });
    expect(changed!.data).toMatchObject({
      plan: { id: 'slow', name: 'Slow' },
      previousPlan: { id: 'fast', name: 'Fast' },
      effectiveAt: fast.currentPeriodEnd,
      currentPeriodEnd: renewed.currentPeriodEnd,
      scheduled: true,
    });
    expect(
      (await c.events(renewedFirst, 'entitlements.updated')).map((event) => event.data.features),
    ).toEqual([FAST.features, SLOW.features]);
    expect((await c.history(renewedFirst))[0]).toMatchObject({
      type: 'plan_changed',
      at: fast.currentPeriodEnd,
      actor: 'system',
      planChange: { from: 'fast', to: 'slow' },
    });

    // The other one lapsed: it expires, and its next renewal is on Slow. Its features ended with the expiry only.
    await waitFor(async () =>
      (await c.events(lapsing, 'subscription.plan_changed')).length > 0 ? true : undefined,
    );
    expect(await c.status(lapsing)).toMatchObject({
      status: 'expired',
      plan: { id: 'slow' },
      pendingPlan: null,
    });
    await waitFor(async () =>
      (await c.events(lapsing, 'subscription.expired')).length > 0 ? true : undefined,
    );
    expect((await c.events(lapsing, 'entitlements.updated')).map((event) => event.data.features)).toEqual([
      FAST.features,
      [],
    ]);
    expect(lapsingFast.currentPeriodEnd).toBeDefined();
    // Down to a plan without features: the expiry still tells of Fast's ending, whichever sweep came first.
    await waitFor(async () =>
      (await c.events(toBare, 'subscription.plan_changed')).length > 0 ? true : undefined,
    );
    expect((await c.events(toBare, 'entitlements.updated')).map((event) => event.data)).toEqual([
      { address: toBare.address, plan: { id: 'fast', name: 'Fast' }, features: FAST.features },
      { address: toBare.address, plan: { id: 'fast', name: 'Fast' }, features: [] },
    ]);
    const back = (await c.renew(lapsing)).body;
    expect(back).toMatchObject({ status: 'active', plan: { id: 'slow' }, features: SLOW.features });
    expect(ms(back.currentPeriodEnd) - ms(back.currentPeriodStart)).toBe(6_000);
  });
});

describe('changes that fall due with no sweep running', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let operator: WalletSession;
  let c: ReturnType<typeof client>;

  beforeAll(async () => {
    // No background workers: what is recorded is only what the requests record.
    t = await startTestApp({ env: { OPERATOR_ADDRESSES: operatorWallet.address, WEBHOOK_WORKERS: 'false' } });
    c = client(t);
    operator = await login(t.url, operatorWallet);
    await createPlans(t, operator, [FAST, SLOW]);
  });
  afterAll(() => t.close());

  it('tells of the features an expiry recorded by a renewal ends (entitlements.updated), then of the new ones', async () => {
    const wallet = await login(t.url);
    const first = (await c.renew(wallet, { plan: 'fast' })).body;
    await sleepUntil(ms(first.currentPeriodEnd) + 50);
    expect((await c.renew(wallet)).status).toBe(200);
    expect(
      (await c.events(wallet, 'subscription.expired')).map((event) => event.data.currentPeriodEnd),
    ).toEqual([first.currentPeriodEnd]);
    expect((await c.events(wallet, 'entitlements.updated')).map((event) => event.data.features)).toEqual([
      FAST.features,
      [],
      FAST.features,
    ]);
  });

  it('applies a scheduled change that fell due before the renewal that follows it, once', async () => {
    const wallet = await login(t.url);
    const first = (await c.renew(wallet, { plan: 'fast' })).body;
    expect((await c.change(wallet, { plan: 'slow' })).status).toBe(200);
    await sleepUntil(ms(first.currentPeriodEnd) + 50);
    const renewed = await c.renew(wallet);
    expect(renewed.body).toMatchObject({
      status: 'active',
      plan: { id: 'slow' },
      features: SLOW.features,
      pendingPlan: null,
    });
    expect(ms(renewed.body.currentPeriodEnd) - ms(renewed.body.currentPeriodStart)).toBe(6_000);
    expect((await c.history(wallet)).map((entry) => [entry.type, entry.at])).toEqual([
      ['renewed', renewed.body.currentPeriodStart],
      ['plan_changed', first.currentPeriodEnd],
      ['expired', first.currentPeriodEnd],
      ['plan_scheduled', expect.any(String)],
      ['renewed', first.currentPeriodStart],
    ]);
    const [changed] = await c.events(wallet, 'subscription.plan_changed');
    expect(changed!.data).toMatchObject({
      previousPlan: { id: 'fast' },
      plan: { id: 'slow' },
      effectiveAt: first.currentPeriodEnd,
      scheduled: true,
    });
    expect((await c.events(wallet, 'entitlements.updated')).map((event) => event.data.features)).toEqual([
      FAST.features,
      [],
      SLOW.features,
    ]);
  });

  it('drops a scheduled change with a cancel now', async () => {
    const wallet = await login(t.url);
    expect((await c.renew(wallet, { plan: 'fast' })).status).toBe(200);
    expect((await c.change(wallet, { plan: 'slow' })).body.pendingPlan).toMatchObject({ id: 'slow' });
    const canceled = await c.api.post('/subscriptions/cancel', {
      token: wallet.token,
      body: { immediate: true },
    });
    expect(canceled.body).toMatchObject({ status: 'canceled', plan: { id: 'fast' }, pendingPlan: null });
  });
});

describe('scheduled changes with two instances sweeping', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let operator: WalletSession;
  let c: ReturnType<typeof client>;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp({ env: { OPERATOR_ADDRESSES: operatorWallet.address } });
    c = client(t);
    operator = await login(t.url, operatorWallet);
    await createPlans(t, operator, [FAST, SLOW]);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  it('applies each change once, whichever instance sweeps', async () => {
    const second = await startServiceProcess(t.databaseUrl, { OPERATOR_ADDRESSES: operatorWallet.address });
    try {
      const wallets = await Promise.all(Array.from({ length: 8 }, () => login(t.url)));
      const ends: number[] = [];
      for (const wallet of wallets) {
        ends.push(ms((await c.renew(wallet, { plan: 'fast' })).body.currentPeriodEnd));
        const scheduled = await http(second.url).post('/subscriptions/change-plan', {
          token: wallet.token,
          body: { plan: 'slow' },
        });
        expect(scheduled.status).toBe(200);
        // Half of them stay active past the change.
        if (wallets.indexOf(wallet) % 2 === 0) expect((await c.renew(wallet)).status).toBe(200);
      }
      await sleepUntil(Math.max(...ends));
      for (const wallet of wallets) {
        await waitFor(async () =>
          (await c.events(wallet, 'subscription.plan_changed')).length > 0 ? true : undefined,
        );
      }
      // Give both instances a few more rounds to apply anything twice.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      for (const wallet of wallets) {
        expect(await c.events(wallet, 'subscription.plan_changed')).toHaveLength(1);
        const { rows } = await db.query(
          `SELECT count(*)::int AS n FROM subscription_events WHERE address = $1 AND type = 'plan_changed'`,
          [wallet.address.toLowerCase()],
        );
        expect(rows[0].n).toBe(1);
        expect(await c.status(wallet)).toMatchObject({ plan: { id: 'slow' }, pendingPlan: null });
      }
    } finally {
      await second.kill();
    }
  });
});
