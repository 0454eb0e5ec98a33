import pg from 'pg';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login } from './utils/wallet.js';

/**
 * An `Idempotency-Key` whose request was under way in an instance that is killed: a retry on another instance is
 * refused while the first instance lives (409), and takes the key over as soon as the database has seen the killed
 * instance's session end, not a minute later.
 */
describe('an idempotency key held by a killed instance', () => {
  let a: TestApp;
  let b: ServiceProcess | undefined;
  let db: pg.Client;
  let blocker: pg.Client;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startServiceProcess(a.databaseUrl);
    db = new pg.Client({ connectionString: a.databaseUrl });
    blocker = new pg.Client({ connectionString: a.databaseUrl });
    await Promise.all([db.connect(), blocker.connect()]);
  });
  afterAll(async () => {
    await b?.kill('SIGKILL');
    await Promise.all([db.end(), blocker.end()]);
    await a.close();
  });

  it('is taken over by a retry once the instance is gone, and the change is made once', async () => {
    const session = await login(a.url);
    const address = session.address.toLowerCase();
    expect((await http(a.url).post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(
      200,
    );
    const periodEnd = async () =>
      (await db.query('SELECT current_period_end FROM subscriptions WHERE address = $1', [address])).rows[0]
        .current_period_end as Date;
    const before = await periodEnd();

    // The subscription's row held here: B's renewal claims the key, then waits on the row inside its transaction.
    await blocker.query('BEGIN');
    await blocker.query('SELECT FROM subscriptions WHERE address = $1 FOR UPDATE', [address]);
    const key = { 'idempotency-key': 'renew-while-killed' };
    void http(b!.url)
      .post('/subscriptions/renew', { token: session.token, body: {}, headers: key })
      .catch(() => undefined);
    const owner = async () =>
      (
        await db.query(
          `SELECT owner_instance FROM idempotency_keys WHERE idempotency_key = $1 AND status = 'in_progress'`,
          [key['idempotency-key']],
        )
      ).rows[0]?.owner_instance as string | undefined;
    await until(async () => (await owner()) !== undefined, 30_000, 'B claiming the key');
    const held = (await owner())!;
    expect(held).toMatch(/^[0-9a-f-]{36}$/);

    // B lives: its attempt may still commit, so a retry elsewhere is refused.
    const whileAlive = await http(a.url).post('/subscriptions/renew', {
      token: session.token,
      body: {},
      headers: key,
    });
    expect(whileAlive.status).toBe(409);
    expect(whileAlive.body.details.code).toBe('idempotency_in_progress');

    await b!.kill('SIGKILL');
    b = undefined;
    // Until the server has seen B's session end, its presence lock is held.
    await until(
      async () =>
        (
          await db.query(
            `SELECT pg_try_advisory_xact_lock(hashtextextended('tollgate-instance:' || $1::text, 0)) AS free`,
            [held],
          )
        ).rows[0].free as boolean,
      30_000,
      "the end of B's session",
    );
    await blocker.query('ROLLBACK');

    const retried = await http(a.url).post('/subscriptions/renew', {
      token: session.token,
      body: {},
      headers: key,
    });
    expect(retried.status).toBe(200);
    // One period more than before: B's attempt rolled back with its session, the retry renewed once.
    const after = await periodEnd();
    expect(new Date(retried.body.currentPeriodEnd).getTime()).toBe(after.getTime());
    expect(after.getTime()).toBeGreaterThan(before.getTime());
    const replayed = await http(a.url).post('/subscriptions/renew', {
      token: session.token,
      body: {},
      headers: key,
    });
    expect(replayed.body).toEqual(retried.body);
    expect((await periodEnd()).getTime()).toBe(after.getTime());
  });
});
