import type { ChargeOutcome } from '../src/auto-renew/charge-executor.js';
import pg from 'pg';
import { AutoRenewRepository } from '../src/auto-renew/auto-renew.repository.js';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { ScriptedChargeExecutor } from './utils/scripted-charge-executor.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

/**
 * Periods of 12 s whose charge is due 8 s before their end: due 4 s after a renewal, so a renewal comes within a
 * sweep round or two, and a sweep that a loaded machine runs late by up to 8 s still charges before the end (past
 * it, under `free`, the subscription is over and its mandate ends).
 */
const PERIOD_MS = 12_000;
const LEAD_MS = 8_000;
const SHORT = {
  SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_MS / 1000),
  AUTO_RENEW_LEAD_SECONDS: String(LEAD_MS / 1000),
};
/** A sweep round (5 s) and a period, with room for a busy machine. */
const WAIT = 60_000;

interface ListedEvent {
  type: string;
  data: Record<string, unknown>;
}

async function events(app: TestApp, session: WalletSession, type: string): Promise<ListedEvent[]> {
  const listed = await http(app.url).get(`/events?type=${type}&limit=200`, { token: session.token });
  expect(listed.status).toBe(200);
  return listed.body as ListedEvent[];
}

async function status(app: TestApp, session: WalletSession): Promise<Record<string, any>> {
  const answer = await http(app.url).get('/subscriptions/status', { token: session.token });
  expect(answer.status).toBe(200);
  return answer.body as Record<string, any>;
}

/**
 * No `payment_failed` or `recovered` event, and the period that ended at `end` did not lapse (a period credited
 * after it may have run out since: these periods last seconds).
 */
async function expectNoFailure(app: TestApp, session: WalletSession, end: string): Promise<void> {
  expect(await events(app, session, 'subscription.payment_failed')).toEqual([]);
  expect(await events(app, session, 'subscription.recovered')).toEqual([]);
  const expired = await events(app, session, 'subscription.expired');
  expect(expired.filter((event) => event.data.currentPeriodEnd === end)).toEqual([]);
}

/**
 * Lets the held charge of `session` go through and waits for its one credit: the renewal after the manual one, for
 * the period after `end`. Answers that renewal's data.
 */
async function releasedAndCredited(
  app: TestApp,
  executor: ScriptedChargeExecutor,
  session: WalletSession,
  end: string,
): Promise<Record<string, unknown>> {
  executor.hold(session.address, null);
  await until(
    async () => (await events(app, session, 'subscription.renewed')).length === 2,
    WAIT,
    'the credit',
  );
  const [renewal] = await events(app, session, 'subscription.renewed');
  expect(renewal!.data).toMatchObject({
    previousPeriodEnd: end,
    currentPeriodEnd: new Date(Date.parse(end) + PERIOD_MS).toISOString(),
  });
  return renewal!.data;
}

/** A signed-in wallet with a running subscription and automatic renewal enabled (for `periods`, when given). */
async function subscribedWithAutoRenew(
  app: TestApp,
  periods?: number,
  before?: (session: WalletSession) => void,
): Promise<{ session: WalletSession; end: string }> {
  const session = await login(app.url);
  before?.(session);
  const renewed = await http(app.url).post('/subscriptions/renew', { token: session.token, body: {} });
  expect(renewed.status).toBe(200);
  const enabled = await http(app.url).post('/subscriptions/auto-renew', {
    token: session.token,
    body: periods === undefined ? {} : { periods },
  });
  expect(enabled.status).toBe(200);
  return { session, end: renewed.body.currentPeriodEnd as string };
}

describe('automatic renewal under free', () => {
  let app: TestApp;
  const executor = new ScriptedChargeExecutor();

  beforeAll(async () => {
    app = await startTestApp({
      env: { ...SHORT, AUTO_RENEW_RETRY_SECONDS: '3600', SUBSCRIPTION_GRACE_HOURS: '1' },
      chargeExecutor: executor,
    });
  });
  afterAll(() => app.close());

  it('offers its terms in GET /subscriptions/plan', async () => {
    const plan = await http(app.url).get('/subscriptions/plan');
    expect(plan.body.autoRenew).toEqual({
      gateway: 'free',
      chainId: null,
      charger: null,
      token: null,
      payee: null,
      amount: '0',
      periodSeconds: PERIOD_MS / 1000,
    });
  });

  it('registers, renews each period at its end with a zero payment, and stops when disabled', async () => {
    const session = await login(app.url);
    const api = http(app.url);
    const refused = await api.post('/subscriptions/auto-renew', { token: session.token, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.details.code).toBe('subscription_not_active');

    const renewed = await api.post('/subscriptions/renew', { token: session.token, body: {} });
    const firstEnd = Date.parse(renewed.body.currentPeriodEnd as string);
    expect(renewed.body.autoRenew).toEqual({
      enabled: false,
      nextChargeAt: null,
      amount: null,
      token: null,
      endsAt: null,
      failure: null,
    });
    const signed = await api.post('/subscriptions/auto-renew', {
      token: session.token,
      body: { mandate: { payer: session.address } },
    });
    expect(signed.status).toBe(400);

    const enabled = await api.post('/subscriptions/auto-renew', {
      token: session.token,
      body: { periods: 12 },
    });
    expect(enabled.status).toBe(200);
    expect(enabled.body.autoRenew).toEqual({
      enabled: true,
      nextChargeAt: new Date(firstEnd - LEAD_MS).toISOString(),
      amount: '0',
      token: null,
      endsAt: new Date(Math.floor(firstEnd / 1000) * 1000 + 12 * PERIOD_MS).toISOString(),
      failure: null,
    });

    // Two periods renewed by the service, each from the end of the one before.
    await until(
      async () => (await events(app, session, 'subscription.renewed')).length >= 3,
      WAIT,
      'two renewals',
    );
    const renewals = (await events(app, session, 'subscription.renewed')).reverse();
    expect(renewals.map((event) => event.data.previousPeriodEnd)).toEqual([
      null,
      new Date(firstEnd).toISOString(),
      new Date(firstEnd + PERIOD_MS).toISOString(),
    ]);
    expect(renewals[1]!.data.payment).toMatchObject({ gateway: 'free', amount: '0', txHash: null });
    const history = await api.get('/subscriptions/history', { token: session.token });
    expect(history.body.filter((entry: { actor: string }) => entry.actor === 'system')).not.toHaveLength(0);
    const charged = executor.asked.filter(
      (due) => due.mandate.payer.toLowerCase() === session.address.toLowerCase(),
    );
    expect(charged.slice(0, 2).map((due) => due.periodIndex)).toEqual([0n, 1n]);

    const disabled = await api.post('/subscriptions/auto-renew/disable', { token: session.token, body: {} });
    expect(disabled.status).toBe(200);
    expect(disabled.body.autoRenew.enabled).toBe(false);
    const again = await api.post('/subscriptions/auto-renew/disable', { token: session.token, body: {} });
    expect(again.status).toBe(404);
    expect(again.body.details.code).toBe('auto_renew_not_enabled');
  });

  it('a manual renewal moves the due period on: it is never charged twice', async () => {
    const { session, end } = await subscribedWithAutoRenew(app);
    const manual = await http(app.url).post('/subscriptions/renew', { token: session.token, body: {} });
    expect(manual.body.currentPeriodEnd).toBe(new Date(Date.parse(end) + PERIOD_MS).toISOString());
    await until(
      async () => (await events(app, session, 'subscription.renewed')).length >= 3,
      WAIT,
      'a renewal',
    );
    const mine = executor.asked.filter(
      (due) => due.mandate.payer.toLowerCase() === session.address.toLowerCase(),
    );
    // Period 0 was paid by hand: the first automatic charge is period 1.
    expect(mine[0]!.periodIndex).toBe(1n);
    await http(app.url).post('/subscriptions/auto-renew/disable', { token: session.token, body: {} });
  });

  it('a failed charge is past_due with its reason, retried at once on request, then recovered', async () => {
    executor.next({
      kind: 'failed',
      failure: 'insufficient_allowance',
      detail:
        'The allowance is 2 USDC and the period costs 5 USDC: approve the charging contract for 5 USDC.',
      retryable: true,
    });
    const { session } = await subscribedWithAutoRenew(app);
    await until(async () => (await status(app, session)).status === 'past_due', WAIT, 'past_due');
    const pastDue = await status(app, session);
    expect(pastDue.active).toBe(true);
    expect(pastDue.autoRenew.failure).toMatchObject({ reason: 'insufficient_allowance' });
    const [failed] = await events(app, session, 'subscription.payment_failed');
    expect(failed!.data).toMatchObject({
      status: 'past_due',
      reason: 'insufficient_allowance',
      message: expect.stringContaining('approve the charging contract'),
    });
    // The next attempt per AUTO_RENEW_RETRY_SECONDS (an hour), unless asked now.
    expect(Date.parse(failed!.data.nextAttemptAt as string)).toBeGreaterThan(Date.now() + 3_000_000);
    // The grace ends SUBSCRIPTION_GRACE_HOURS after the period end (entitlements' `until` then, unit-tested).
    expect(pastDue.graceEndsAt).toBe(failed!.data.graceEndsAt);
    expect(Date.parse(pastDue.graceEndsAt!) - Date.parse(pastDue.currentPeriodEnd!)).toBe(3_600_000);

    const retry = await http(app.url).post('/subscriptions/auto-renew/retry', {
      token: session.token,
      body: {},
    });
    expect(retry.status).toBe(200);
    await until(
      async () => (await events(app, session, 'subscription.recovered')).length === 1,
      WAIT,
      'recovery',
    );
    const recovered = await status(app, session);
    expect(recovered.status).toBe('active');
    expect(recovered.graceEndsAt).toBeNull();
    expect(recovered.autoRenew.failure).toBeNull();
    const nothing = await http(app.url).post('/subscriptions/auto-renew/retry', {
      token: session.token,
      body: {},
    });
    expect(nothing.status).toBe(409);
    await http(app.url).post('/subscriptions/auto-renew/disable', { token: session.token, body: {} });
  });

  it('a charge still in flight at the period end keeps the subscription in force, then pays the period after it', async () => {
    const inFlight: ChargeOutcome = { kind: 'pending' };
    const { session, end } = await subscribedWithAutoRenew(app, 1, (wallet) =>
      executor.hold(wallet.address, inFlight),
    );
    await until(
      async () => executor.askedOf(session).length > 0 && Date.now() > Date.parse(end) + 1000,
      WAIT,
      'the period end with the charge in flight',
    );
    const held = await status(app, session);
    expect(held).toMatchObject({ active: true, status: 'past_due', currentPeriodEnd: end });
    expect(held.autoRenew.failure).toBeNull();

    await releasedAndCredited(app, executor, session, end);
    // Nothing failed: nothing to tell the subscriber, nothing to recover from.
    await expectNoFailure(app, session, end);
    expect(executor.askedOf(session).map((due) => due.periodIndex)).toEqual(
      executor.askedOf(session).map(() => 0n),
    );
  });

  it('the chain down through the period end: no payment_failed, asked again soon, charged once when back', async () => {
    const down: ChargeOutcome = {
      kind: 'failed',
      failure: 'chain_unavailable',
      detail: "the chain's endpoint did not answer (could not read the chain id); tried again later",
      retryable: true,
    };
    const { session, end } = await subscribedWithAutoRenew(app, 1, (wallet) =>
      executor.hold(wallet.address, down),
    );
    // Asked again within the wait, not an hour later (AUTO_RENEW_RETRY_SECONDS): the chain's retries are its own.
    await until(
      async () => executor.askedOf(session).length >= 2 && Date.now() > Date.parse(end) + 1000,
      WAIT,
      'a second attempt past the period end',
    );
    const held = await status(app, session);
    expect(held).toMatchObject({ active: true, status: 'past_due', currentPeriodEnd: end });
    expect(await events(app, session, 'subscription.payment_failed')).toEqual([]);

    await releasedAndCredited(app, executor, session, end);
    await expectNoFailure(app, session, end);
  });

  it('a revoked mandate is a cancellation at period end, not a retry loop', async () => {
    executor.next({
      kind: 'failed',
      failure: 'mandate_revoked',
      detail: 'The payer revoked the mandate on chain.',
      retryable: false,
    });
    const { session } = await subscribedWithAutoRenew(app);
    await until(
      async () => (await events(app, session, 'subscription.canceled')).length === 1,
      WAIT,
      'the cancel',
    );
    const [canceled] = await events(app, session, 'subscription.canceled');
    expect(canceled!.data).toMatchObject({
      cancelAtPeriodEnd: true,
      immediate: false,
      reason: 'mandate_revoked',
    });
    const after = await status(app, session);
    expect(after.autoRenew.enabled).toBe(false);
    expect(await events(app, session, 'subscription.payment_failed')).toHaveLength(0);
  });
});

describe('automatic renewal when the grace runs out', () => {
  let app: TestApp;
  const executor = new ScriptedChargeExecutor();

  beforeAll(async () => {
    app = await startTestApp({
      env: { ...SHORT, AUTO_RENEW_RETRY_SECONDS: '3600', SUBSCRIPTION_GRACE_HOURS: '0' },
      chargeExecutor: executor,
    });
  });
  afterAll(() => app.close());

  it('expires with reason payment_failed', async () => {
    executor.next({
      kind: 'failed',
      failure: 'insufficient_balance',
      detail: 'Balance too low.',
      retryable: true,
    });
    const { session } = await subscribedWithAutoRenew(app);
    await until(
      async () => (await events(app, session, 'subscription.expired')).length === 1,
      WAIT,
      'the expiry',
    );
    const [expired] = await events(app, session, 'subscription.expired');
    expect(expired!.data).toMatchObject({ status: 'expired', reason: 'payment_failed' });
    expect(await events(app, session, 'subscription.payment_failed')).toHaveLength(1);
  });

  it('a charge that confirms after the subscription ran out pays the period after its end, once', async () => {
    const inFlight: ChargeOutcome = { kind: 'pending' };
    const { session, end } = await subscribedWithAutoRenew(app, 1, (wallet) =>
      executor.hold(wallet.address, inFlight),
    );
    // No grace: the subscription runs out while its charge is in flight, and the mandate is kept for it.
    await until(
      async () => executor.askedOf(session).length > 0 && (await status(app, session)).status === 'expired',
      WAIT,
      'the end of the period with the charge in flight',
    );
    expect(await releasedAndCredited(app, executor, session, end)).toMatchObject({
      payment: { gateway: 'free' },
    });
    // The late confirmation was only asked about (settle), never charged anew, and credited once.
    expect(executor.askedOf(session).map((due) => due.periodIndex)).toEqual(
      executor.askedOf(session).map(() => 0n),
    );
  });
});

describe('automatic renewal under operator', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { PAYMENT_GATEWAY: 'operator' } });
  });
  afterAll(() => app.close());

  it('is not offered', async () => {
    const session = await login(app.url);
    const answer = await http(app.url).post('/subscriptions/auto-renew', { token: session.token, body: {} });
    expect(answer.status).toBe(400);
    expect(answer.body.details.code).toBe('auto_renew_unavailable');
    expect((await http(app.url).get('/subscriptions/plan')).body.autoRenew).toBeNull();
  });
});

describe("the renewal sweep's claim", () => {
  let app: TestApp;
  let db: pg.Client;
  beforeAll(async () => {
    // No workers: nothing claims the mandates but the test.
    app = await startTestApp({ env: { WEBHOOK_WORKERS: 'false' } });
    db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await app.close();
  });

  it('hands out the longest due first, whatever order the rows lie in', async () => {
    const wallets = [];
    for (let i = 0; i < 5; i++) wallets.push((await subscribedWithAutoRenew(app)).session.address);
    // Due in the reverse of the order the rows were written (and then rewritten in): the table's order is not due order.
    for (const [i, address] of wallets.entries()) {
      await db.query(
        `UPDATE auto_renew_mandates SET next_charge_at = now() - make_interval(secs => $1) WHERE address = $2 AND status = 'enabled'`,
        [60 + i, address.toLowerCase()],
      );
    }
    const { mandates } = await app.app.get(AutoRenewRepository).claimDue(10, 60);
    expect(mandates.map((mandate) => mandate.address)).toEqual(
      [...wallets].reverse().map((address) => address.toLowerCase()),
    );
  });
});
