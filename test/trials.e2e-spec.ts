import pg from 'pg';
import { getAddress } from 'viem';
import { erc20PaymentEnv, startTestChain, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import { Receiver, sleep, until } from './utils/receiver.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/** Seconds between two ISO instants, exact to the millisecond. */
const seconds = (from: string, to: string): number => (Date.parse(to) - Date.parse(from)) / 1000;
/** Waits until the wall clock has passed an ISO instant (the service's clock is the same machine's). */
const pass = async (iso: string): Promise<void> => {
  const left = Date.parse(iso) - Date.now();
  if (left > -50) await sleep(left + 100);
};

interface ListedEvent {
  type: string;
  data: Record<string, unknown> & { payment?: { gateway: string; amount: string } };
}

/**
 * A trial of 10 s inside a notice of an hour: its reminder is due at once (a reminder sweep runs every 5 s), and its
 * end comes within a test.
 */
const TRIAL = {
  id: 'pro',
  name: 'Pro',
  periodSeconds: 60,
  pricePerPeriod: '5000000',
  features: ['api.calls', 'export.csv'],
  trialSeconds: 10,
};
/** Long enough to act within it. */
const LONG = { ...TRIAL, id: 'team', name: 'Team', features: ['sso'], trialSeconds: 3600 };

describe('trials (PAYMENT_GATEWAY=free)', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let db: pg.Client;
  let api: ReturnType<typeof http>;
  let receiver: Receiver;

  const renew = (session: WalletSession, body: unknown = {}) =>
    api.post('/subscriptions/renew', { token: session.token, body });
  const status = async (session: WalletSession) =>
    (await api.get('/subscriptions/status', { token: session.token })).body;
  const events = async (session: WalletSession, type: string): Promise<ListedEvent[]> =>
    (await api.get(`/events?type=${type}&limit=200`, { token: session.token })).body as ListedEvent[];

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        OPERATOR_ADDRESSES: operatorWallet.address,
        SUBSCRIPTION_EXPIRING_NOTICE_HOURS: '1',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    api = http(t.url);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    const operator = await login(t.url, operatorWallet);
    for (const plan of [TRIAL, LONG]) {
      expect((await api.post('/plans', { token: operator.token, body: plan })).status).toBe(200);
    }
    receiver = await Receiver.start();
    const hook = await api.post('/webhooks', {
      token: operator.token,
      body: { url: receiver.url, events: ['subscription.trial_will_end'] },
    });
    expect(hook.status).toBe(200);
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await receiver?.close();
  });

  it('starts the first subscription to a plan with a trial: trialing, in force, its features, no payment', async () => {
    const wallet = await login(t.url);
    const started = await renew(wallet, { plan: 'team' });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({
      status: 'trialing',
      active: true,
      plan: { id: 'team', name: 'Team' },
      features: ['sso'],
      trialEnd: started.body.currentPeriodEnd,
    });
    expect(seconds(started.body.currentPeriodStart, started.body.trialEnd)).toBe(3600);
    expect(await status(wallet)).toEqual(started.body);

    // The entitlements read from the same cache: in force while trialing, until the trial's end.
    const entitled = await api.get('/entitlements?feature=sso', { token: wallet.token });
    expect(entitled.body).toMatchObject({ entitled: true, until: started.body.trialEnd });

    const history = await api.get('/subscriptions/history', { token: wallet.token });
    expect(history.body[0]).toMatchObject({ type: 'renewed', payment: { gateway: 'trial', amount: '0' } });
    const [renewed] = await events(wallet, 'subscription.renewed');
    expect(renewed!.data).toMatchObject({ status: 'trialing', payment: { gateway: 'trial', amount: '0' } });
    expect((await events(wallet, 'entitlements.updated')).map((event) => event.data.features)).toEqual([
      ['sso'],
    ]);
  });

  it('starts the paid period at the trial end when paid during it: no time lost', async () => {
    const wallet = await login(t.url);
    const started = await renew(wallet, { plan: 'team' });
    const paid = await renew(wallet, { plan: 'team' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'trialing', trialEnd: started.body.trialEnd });
    expect(paid.body.currentPeriodStart).toBe(started.body.currentPeriodStart);
    expect(seconds(started.body.trialEnd, paid.body.currentPeriodEnd)).toBe(60);
    const history = await api.get('/subscriptions/history', { token: wallet.token });
    expect(history.body.map((entry: { payment: { gateway: string } }) => entry.payment.gateway)).toEqual([
      'free',
      'trial',
    ]);
  });

  it('becomes active at the trial end when paid, and gets no trial_ended expiry', async () => {
    const wallet = await login(t.url);
    const started = await renew(wallet, { plan: 'pro' });
    expect(started.body.status).toBe('trialing');
    const paid = await renew(wallet);
    expect(seconds(started.body.trialEnd, paid.body.currentPeriodEnd)).toBe(60);
    await pass(started.body.trialEnd);
    expect(await status(wallet)).toMatchObject({
      status: 'active',
      active: true,
      trialEnd: started.body.trialEnd,
      features: TRIAL.features,
    });
    expect((await api.get('/entitlements', { token: wallet.token })).body).toMatchObject({
      features: TRIAL.features,
      until: paid.body.currentPeriodEnd,
    });
    await sleep(6_000); // a sweep round (5 s) after the trial's end
    expect(await events(wallet, 'subscription.expired')).toEqual([]);
  });

  it('ends an unpaid trial: expired with reason trial_ended, features gone, after one trial_will_end', async () => {
    const wallet = await login(t.url);
    const started = await renew(wallet, { plan: 'pro' });
    expect(started.body).toMatchObject({ status: 'trialing', trialEnd: started.body.currentPeriodEnd });
    expect(seconds(started.body.currentPeriodStart, started.body.trialEnd)).toBe(10);

    await until(
      async () => (await events(wallet, 'subscription.expired')).length > 0,
      20_000,
      'the trial to expire',
    );
    const [expired] = await events(wallet, 'subscription.expired');
    expect(expired!.data).toMatchObject({
      status: 'expired',
      active: false,
      reason: 'trial_ended',
      features: [],
    });
    expect(await status(wallet)).toMatchObject({ status: 'expired', active: false, features: [] });
    expect((await api.get('/entitlements?feature=api.calls', { token: wallet.token })).body).toMatchObject({
      entitled: false,
    });
    expect((await events(wallet, 'entitlements.updated')).map((event) => event.data.features)).toEqual([
      [],
      TRIAL.features,
    ]);

    // The reminder was sent once, before the end, with the time the trial had left; not subscription.expiring.
    const reminders = await events(wallet, 'subscription.trial_will_end');
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.data).toMatchObject({ status: 'trialing', trialEnd: started.body.trialEnd });
    expect(reminders[0]!.data.trialEndsInSeconds).toBeGreaterThanOrEqual(0);
    expect(reminders[0]!.data.trialEndsInSeconds).toBeLessThanOrEqual(10);
    expect(await events(wallet, 'subscription.expiring')).toEqual([]);
    await until(
      () => receiver.received.some((request) => request.body.includes(wallet.address)),
      10_000,
      "the operator's webhook delivery",
    );

    // A second time: no trial, the normal period (free here).
    const again = await renew(wallet, { plan: 'pro' });
    expect(again.body).toMatchObject({ status: 'active', trialEnd: null });
    expect(seconds(again.body.currentPeriodStart, again.body.currentPeriodEnd)).toBe(60);
  });

  it('ends the trial with the period on a cancel now, and does not give it again', async () => {
    const wallet = await login(t.url);
    expect((await renew(wallet, { plan: 'team' })).body.status).toBe('trialing');
    const canceled = await api.post('/subscriptions/cancel', {
      token: wallet.token,
      body: { immediate: true },
    });
    expect(canceled.body).toMatchObject({ status: 'canceled', active: false, features: [] });
    expect(canceled.body.trialEnd).toBe(canceled.body.currentPeriodEnd);
    const again = await renew(wallet, { plan: 'team' });
    expect(again.body).toMatchObject({ status: 'active', trialEnd: null });
  });

  it('gives one trial when the same wallet subscribes eight times at once; the others renew after it', async () => {
    const wallet = await login(t.url);
    const answers = await Promise.all(Array.from({ length: 8 }, () => renew(wallet, { plan: 'team' })));
    expect(answers.map((answer) => [answer.status, answer.body?.details?.code])).toEqual(
      Array(8).fill([200, undefined]),
    );
    const final = await status(wallet);
    expect(final.status).toBe('trialing');
    expect(seconds(final.currentPeriodStart, final.trialEnd)).toBe(3600);
    expect(seconds(final.trialEnd, final.currentPeriodEnd)).toBe(7 * 60);
    const { rows } = await db.query(
      `SELECT gateway, count(*)::int AS n FROM payments WHERE address = $1 GROUP BY gateway ORDER BY gateway`,
      [wallet.address.toLowerCase()],
    );
    expect(rows).toEqual([
      { gateway: 'free', n: 7 },
      { gateway: 'trial', n: 1 },
    ]);
  });
});

describe('trials (PAYMENT_GATEWAY=erc20)', () => {
  const receiverAddress = getAddress(newWallet().address);
  const operatorWallet = newWallet();
  let chain: TestChain;
  let token: TestToken;
  let t: TestApp;
  let api: ReturnType<typeof http>;

  const renew = (session: WalletSession, body: unknown = {}) =>
    api.post('/subscriptions/renew', { token: session.token, body });

  beforeAll(async () => {
    chain = await startTestChain();
    token = await chain.deployToken('Test USD', 'TUSD', 6);
    t = await startTestApp({
      env: {
        ...erc20PaymentEnv(chain, token, receiverAddress, 5_000_000n),
        OPERATOR_ADDRESSES: operatorWallet.address,
        WEBHOOK_WORKERS: 'false',
      },
    });
    api = http(t.url);
    const operator = await login(t.url, operatorWallet);
    expect((await api.post('/plans', { token: operator.token, body: LONG })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await chain?.stop();
  });

  it('needs no payment for the trial, and the plan price after it (402 payment_required)', async () => {
    const wallet = await login(t.url);
    const started = await renew(wallet, { plan: 'team' });
    expect(started).toMatchObject({ status: 200, body: { status: 'trialing', features: ['sso'] } });
    expect(await renew(wallet)).toMatchObject({
      status: 402,
      body: { details: { code: 'payment_required' } },
    });

    await token.mint(wallet.address, 10_000_000n);
    const txHash = await token.transfer(wallet.address, receiverAddress, 5_000_000n);
    const paid = await renew(wallet, { payment: { txHash } });
    expect(paid).toMatchObject({
      status: 200,
      body: { status: 'trialing', trialEnd: started.body.trialEnd },
    });
    expect(seconds(started.body.trialEnd, paid.body.currentPeriodEnd)).toBe(60);
  });

  it('credits a payment sent with the first subscription after the trial', async () => {
    const wallet = await login(t.url);
    await token.mint(wallet.address, 5_000_000n);
    const txHash = await token.transfer(wallet.address, receiverAddress, 5_000_000n);
    const subscribed = await renew(wallet, { plan: 'team', payment: { txHash } });
    expect(subscribed).toMatchObject({ status: 200, body: { status: 'trialing' } });
    expect(seconds(subscribed.body.currentPeriodStart, subscribed.body.trialEnd)).toBe(3600);
    expect(seconds(subscribed.body.trialEnd, subscribed.body.currentPeriodEnd)).toBe(60);
  });

  it('gives the trial to one of two concurrent subscribes; the other must pay', async () => {
    const wallet = await login(t.url);
    const answers = await Promise.all([renew(wallet, { plan: 'team' }), renew(wallet, { plan: 'team' })]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 402]);
    const refused = answers.find((answer) => answer.status === 402)!;
    expect(refused.body.details.code).toBe('payment_required');
    const won = answers.find((answer) => answer.status === 200)!;
    expect(won.body).toMatchObject({ status: 'trialing' });
    expect((await api.get('/subscriptions/status', { token: wallet.token })).body).toEqual(won.body);
  });

  it('gives no second trial after a cancel now: the plan price is due', async () => {
    const wallet = await login(t.url);
    expect((await renew(wallet, { plan: 'team' })).body.status).toBe('trialing');
    const canceled = await api.post('/subscriptions/cancel', {
      token: wallet.token,
      body: { immediate: true },
    });
    expect(canceled.body.status).toBe('canceled');
    expect(await renew(wallet, { plan: 'team' })).toMatchObject({
      status: 402,
      body: { details: { code: 'payment_required' } },
    });
  });
});
