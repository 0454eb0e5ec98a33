import pg from 'pg';
import { Database } from '../src/database/database.service.js';
import { sql } from '../src/database/sql.js';
import { SubscriptionCredits } from '../src/subscriptions/subscription-credits.service.js';
import { SubscriptionLookup } from '../src/subscriptions/subscription-lookup.service.js';
import { http } from './utils/http.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

const DAY_SECONDS = 86_400;
const ms = (iso: string): number => Date.parse(iso);

/**
 * The seams SubscriptionsModule exports to other features (docs/extending.md, "Depending on another feature"), used
 * as a feature would: periods credited from a source other than a payment inside the caller's own transaction, and
 * a subscription read.
 */
describe('the subscriptions seams', () => {
  let t: TestApp;
  let db: pg.Client;
  let database: Database;
  let credits: SubscriptionCredits;
  let lookup: SubscriptionLookup;

  const rows = async (table: 'subscription_events' | 'payments' | 'events', address: string) => {
    const order = table === 'subscription_events' ? 'seq' : 'created_at';
    const { rows: found } = await db.query(`SELECT * FROM ${table} WHERE address = $1 ORDER BY ${order}`, [
      address.toLowerCase(),
    ]);
    return found;
  };
  const status = (who: WalletSession) =>
    http(t.url).get(`/subscriptions/status?address=${who.address}`, { token: who.token });

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_WORKERS: 'false' } });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    await db.query('CREATE TABLE IF NOT EXISTS seam_redemptions (code varchar PRIMARY KEY, address varchar)');
    database = t.app.get(Database);
    credits = t.app.get(SubscriptionCredits);
    lookup = t.app.get(SubscriptionLookup);
  });
  afterAll(async () => {
    await db.query('DROP TABLE IF EXISTS seam_redemptions');
    await db.end();
    await t.close();
  });

  it('credits periods from a named source as a renewal: history entry, zero payment, event, status', async () => {
    const user = await login(t.url);
    const credited = await database.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO seam_redemptions VALUES ('WELCOME-1', ${user.address.toLowerCase()})`);
      return credits.credit(tx, {
        address: user.address,
        actor: { address: user.address, scopes: [], via: 'jwt', operator: false },
        source: 'coupon',
        periods: 3,
        periodSeconds: DAY_SECONDS,
      });
    });
    expect(credited.status).toBe('active');
    expect(ms(credited.currentPeriodEnd!) - ms(credited.currentPeriodStart!)).toBe(3 * DAY_SECONDS * 1000);
    // The cache saw the change's own invalidation: the route and the read seam agree with the answer.
    expect((await status(user)).body).toEqual(credited);
    expect(await lookup.status(user.address)).toEqual(credited);

    const [entry] = await rows('subscription_events', user.address);
    expect(entry).toMatchObject({
      type: 'renewed',
      actor: user.address.toLowerCase(),
      previous_period_end: null,
      payment_id: expect.any(String),
    });
    const [payment] = await rows('payments', user.address);
    expect(payment).toMatchObject({ gateway: 'coupon', amount_minor: '0', tx_hash: null });
    const [event] = await rows('events', user.address);
    expect(event.type).toBe('subscription.renewed');
    expect(event.data).toMatchObject({
      ...credited,
      previousPeriodEnd: null,
      periods: 3,
      payment: { gateway: 'coupon', amount: '0', txHash: null },
    });
    const history = await http(t.url).get(`/subscriptions/history?address=${user.address}`, {
      token: user.token,
    });
    expect(history.body[0].payment).toMatchObject({ gateway: 'coupon', amount: '0' });
  });

  it("rolls back with the caller's transaction: nothing credited, no event", async () => {
    const user = await login(t.url);
    await expect(
      database.transaction(async (tx) => {
        await credits.credit(tx, {
          address: user.address,
          actor: 'system',
          source: 'trial',
          periods: 1,
          periodSeconds: DAY_SECONDS,
        });
        throw new Error('the coupon was used up meanwhile');
      }),
    ).rejects.toThrow('the coupon was used up meanwhile');
    expect((await status(user)).body.status).toBe('none');
    expect(await rows('subscription_events', user.address)).toEqual([]);
    expect(await rows('events', user.address)).toEqual([]);
  });

  it('adds N credits for N concurrent ones, from none: one chain of periods', async () => {
    const user = await login(t.url);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        database.transaction((tx) =>
          credits.credit(tx, {
            address: user.address,
            actor: 'system',
            source: 'trial',
            periods: 2,
            periodSeconds: DAY_SECONDS,
          }),
        ),
      ),
    );
    const start = ms(answers[0]!.currentPeriodStart!);
    expect(
      answers.map((answer) => (ms(answer.currentPeriodEnd!) - start) / (2 * DAY_SECONDS * 1000)).sort(),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await rows('subscription_events', user.address)).toHaveLength(8);
    expect(await rows('events', user.address)).toHaveLength(8);
  });

  it.each([
    ['a payment gateway name as the source', { source: 'erc20' }, /payment gateway/],
    ['a source that is not a code', { source: 'Coupon!' }, /not a code/],
    ['zero periods', { periods: 0 }, /0 periods/],
    ['a fractional period length', { periodSeconds: 1.5 }, /1.5 s/],
  ])('refuses %s, writing nothing', async (_case, change, message) => {
    const user = await login(t.url);
    const credit = { address: user.address, actor: 'system' as const, source: 'trial', periods: 1 };
    await expect(
      database.transaction((tx) => credits.credit(tx, { ...credit, periodSeconds: DAY_SECONDS, ...change })),
    ).rejects.toThrow(message);
    expect(await rows('subscription_events', user.address)).toEqual([]);
  });
});
