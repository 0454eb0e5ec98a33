import pg from 'pg';
import { http } from './utils/http.js';
import { Receiver, sleep, until } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/** A period of an hour inside a notice of two: every renewal is due for its reminder at once. */
const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  SUBSCRIPTION_PERIOD_SECONDS: '3600',
  SUBSCRIPTION_EXPIRING_NOTICE_HOURS: '2',
};
/** The sweep's round (REMINDER_SWEEP_INTERVAL_MS) and some: both instances have swept again after this. */
const SWEEP_ROUNDS = 6_000;

interface ListedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

async function reminders(url: string, session: WalletSession): Promise<ListedEvent[]> {
  const listed = await http(url).get('/events?type=subscription.expiring&limit=200', {
    token: session.token,
  });
  expect(listed.status).toBe(200);
  return listed.body as ListedEvent[];
}

/** The `subscription.expiring` bodies a receiver got, oldest first. */
function receivedReminders(receiver: Receiver): Array<{ id: string; data: Record<string, unknown> }> {
  return receiver.received
    .map((request) => JSON.parse(request.body) as { id: string; type: string; data: Record<string, unknown> })
    .filter((body) => body.type === 'subscription.expiring');
}

describe('subscription.expiring with two instances', () => {
  const operatorWallet = newWallet();
  let a: TestApp;
  let b: ServiceProcess;
  let ownerReceiver: Receiver;
  let operatorReceiver: Receiver;

  beforeAll(async () => {
    const env = { ...ENV, OPERATOR_ADDRESSES: operatorWallet.address };
    a = await startTestApp({ env });
    b = await startServiceProcess(a.databaseUrl, env);
    ownerReceiver = await Receiver.start();
    operatorReceiver = await Receiver.start();
  });
  afterAll(async () => {
    await b.kill();
    await a.close();
    await ownerReceiver.close();
    await operatorReceiver.close();
  });

  it('is sent once per period end, to the owner and to operators, and again after a renewal', async () => {
    const owner = await login(a.url);
    const operator = await login(b.url, operatorWallet);
    for (const [session, receiver] of [
      [owner, ownerReceiver],
      [operator, operatorReceiver],
    ] as const) {
      const hook = await http(a.url).post('/webhooks', {
        token: session.token,
        body: { url: receiver.url, events: ['subscription.expiring'] },
      });
      expect(hook.status).toBe(200);
    }

    const first = await http(a.url).post('/subscriptions/renew', { token: owner.token, body: {} });
    expect(first.status).toBe(200);
    const firstEnd = first.body.currentPeriodEnd as string;
    await until(async () => (await reminders(b.url, owner)).length >= 1, 20_000, 'the first reminder');
    // Give a second one, if either instance were to record it, the time to appear.
    await sleep(SWEEP_ROUNDS);

    const afterFirst = await reminders(a.url, owner);
    expect(afterFirst).toHaveLength(1);
    expect(afterFirst[0]!.data).toMatchObject({
      address: owner.address,
      status: 'active',
      currentPeriodEnd: firstEnd,
      cancelAtPeriodEnd: false,
    });
    const endsIn = afterFirst[0]!.data.endsInSeconds as number;
    expect(endsIn).toBe(Math.floor((Date.parse(firstEnd) - Date.parse(afterFirst[0]!.createdAt)) / 1000));
    expect(endsIn).toBeGreaterThan(0);
    expect(endsIn).toBeLessThanOrEqual(3600);

    // A renewal moves the period end: the next reminder is armed again.
    const second = await http(b.url).post('/subscriptions/renew', { token: owner.token, body: {} });
    expect(second.status).toBe(200);
    const secondEnd = second.body.currentPeriodEnd as string;
    expect(Date.parse(secondEnd) - Date.parse(firstEnd)).toBe(3_600_000);
    await until(async () => (await reminders(a.url, owner)).length >= 2, 20_000, 'the second reminder');
    await sleep(SWEEP_ROUNDS);

    const listed = await reminders(b.url, owner);
    expect(listed.map((event) => event.data.currentPeriodEnd)).toEqual([secondEnd, firstEnd]);
    // The operator lists them too, and both receivers got each exactly once, under the listed ids.
    const operatorListed = await http(b.url).get(
      `/events?type=subscription.expiring&address=${owner.address}`,
      { token: operator.token },
    );
    expect(operatorListed.body).toEqual(listed);
    const ids = listed.map((event) => event.id).reverse();
    for (const receiver of [ownerReceiver, operatorReceiver]) {
      await receiver.waitFor(2);
      expect(receivedReminders(receiver).map((body) => body.id)).toEqual(ids);
    }
  });
});

describe('subscription.expiring is only for active periods within the notice that will not end by a cancel', () => {
  let t: TestApp;

  afterAll(async () => {
    await t.close();
  });

  it('skips a subscription canceled at period end, ended now, or ending beyond the notice', async () => {
    // Set the subscriptions up with no sweep running, then start one that sees them all in its first round.
    t = await startTestApp({ env: { ...ENV, WEBHOOK_WORKERS: 'false' } });
    const api = http(t.url);
    const renewing = await login(t.url);
    const cancelingAtEnd = await login(t.url);
    const endedNow = await login(t.url);
    const farOff = await login(t.url);
    for (const session of [renewing, cancelingAtEnd, endedNow, farOff, farOff, farOff]) {
      expect((await api.post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(200);
    }
    expect((await api.post('/subscriptions/cancel', { token: cancelingAtEnd.token, body: {} })).status).toBe(
      200,
    );
    expect(
      (await api.post('/subscriptions/cancel', { token: endedNow.token, body: { immediate: true } })).status,
    ).toBe(200);
    // Renewing drops a pending cancel: that period is due again.
    const resumed = await login(t.url);
    expect((await api.post('/subscriptions/renew', { token: resumed.token, body: {} })).status).toBe(200);
    expect((await api.post('/subscriptions/cancel', { token: resumed.token, body: {} })).status).toBe(200);
    expect((await api.post('/subscriptions/renew', { token: resumed.token, body: {} })).status).toBe(200);

    await t.close();
    t = await startTestApp({ env: ENV, keepData: true });
    await until(async () => (await reminders(t.url, renewing)).length === 1, 20_000, 'the reminder');
    // One sweep statement judged every due subscription at once: the others' answers are final.
    expect(await reminders(t.url, resumed)).toHaveLength(1);
    expect(await reminders(t.url, cancelingAtEnd)).toEqual([]);
    expect(await reminders(t.url, endedNow)).toEqual([]);
    // Three periods of an hour end beyond the two hours' notice.
    expect(await reminders(t.url, farOff)).toEqual([]);
  });
});

describe('subscription_reminders purge', () => {
  let t: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp({ env: { ...ENV, WEBHOOK_WORKERS: 'false' } });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const pastPeriodEnds = async (): Promise<number[]> =>
    (
      await db.query<{ period_end: Date }>(
        'SELECT period_end FROM subscription_reminders WHERE period_end < now() ORDER BY period_end',
      )
    ).rows.map((row) => row.period_end.getTime());

  it('deletes the rows of period ends more than a day past when an instance starts, and keeps the others', async () => {
    const session = await login(t.url);
    expect((await http(t.url).post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(
      200,
    );
    const stale = new Date(Date.now() - 2 * 86_400_000);
    const recent = new Date(Date.now() - 3_600_000);
    await db.query('INSERT INTO subscription_reminders (address, period_end) VALUES ($1, $2), ($1, $3)', [
      session.address.toLowerCase(),
      stale,
      recent,
    ]);

    // The purge runs when an instance starts, then hourly.
    await t.close();
    t = await startTestApp({ env: ENV, keepData: true });
    await until(async () => (await pastPeriodEnds()).length === 1, 10_000, 'the purge');
    expect(await pastPeriodEnds()).toEqual([recent.getTime()]);
  });
});
