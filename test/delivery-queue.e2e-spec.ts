import pg from 'pg';
import { Database } from '../src/database/database.service.js';
import { DatabaseAvailability } from '../src/database/database-availability.js';
import { DatabaseSession } from '../src/database/database-session.js';
import { runMigrations } from '../src/database/migrate.js';
import type { DeliveryOutcome } from '../src/webhooks/delivery/guarded-http.client.js';
import type { ClaimedDelivery } from '../src/webhooks/delivery/queue/delivery-queue.js';
import { PostgresDeliveryQueue } from '../src/webhooks/delivery/queue/postgres-delivery-queue.js';
import { until } from './utils/receiver.js';
import { truncateAll, workerDatabaseUrl } from './utils/test-database.js';

/** The delivery queue on its own, against PostgreSQL: what the worker and the test sends rely on. */
describe('PostgresDeliveryQueue', () => {
  let pool: pg.Pool;
  let queue: PostgresDeliveryQueue;
  let endpointId: string;

  const outcome = (statusCode: number | null, success = false): DeliveryOutcome => ({
    success,
    statusCode,
    durationMs: 12,
    error: success ? null : `http_status: ${statusCode}`,
    retryAfterSeconds: null,
    responseBody: null,
  });

  /** `count` pending deliveries to the configuration, with attempts made so far and when the next is due. */
  async function enqueue(count: number, attemptCount: number, dueIn: string): Promise<string[]> {
    const { rows } = await pool.query<{ id: string }>(
      `WITH event AS (
         INSERT INTO events (type, address, data) SELECT 'api_key.created', '0xabc', '{}' FROM generate_series(1, $1)
         RETURNING id
       )
       INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, attempt_count, next_attempt_at)
       SELECT $2, id, 'api_key.created', '{}', $3, now() + $4::interval FROM event
       RETURNING id`,
      [count, endpointId, attemptCount, dueIn],
    );
    return rows.map((row) => row.id);
  }

  async function delivery(id: string) {
    const { rows } = await pool.query(
      `SELECT status, attempt_count, next_attempt_at - now() > interval '4 seconds' AS later,
         next_attempt_at IS NULL AS ended, locked_until IS NULL AS released, last_status_code
       FROM webhook_deliveries WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  async function endpoint() {
    const { rows } = await pool.query(
      `SELECT enabled, failing_since IS NOT NULL AS failing, disabled_reason FROM webhook_endpoints WHERE id = $1`,
      [endpointId],
    );
    return rows[0];
  }

  beforeAll(async () => {
    const url = await workerDatabaseUrl();
    await runMigrations(url);
    pool = new pg.Pool({ connectionString: url, max: 4 });
  });
  beforeEach(async () => {
    await truncateAll(pool.options.connectionString!);
    // A session never started: no presence, no wake-ups from other processes (the consumer polls).
    queue = new PostgresDeliveryQueue(
      new Database(pool, new DatabaseAvailability()),
      new DatabaseSession({ url: pool.options.connectionString! }),
    );
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO webhook_endpoints (owner_address, url, events, secret)
       VALUES ('0xabc', 'http://127.0.0.1:9/hook', ARRAY['*'], 'whsec_test') RETURNING id`,
    );
    endpointId = rows[0]!.id;
  });
  afterAll(async () => {
    await pool.end();
  });

  it('claims due retries before a backlog of first attempts that fell due earlier', async () => {
    // A backlog due for two seconds, then retries whose time came a moment ago and one whose time has not come.
    const backlog = await enqueue(200, 0, '-2 seconds');
    const retries = await enqueue(3, 1, '-100 milliseconds');
    const [notYet] = await enqueue(1, 1, '1 minute');

    const claimed = (await queue.claim(10)).map((d) => d.id);

    expect(claimed).toHaveLength(10);
    expect(claimed).toEqual(expect.arrayContaining(retries));
    expect(claimed).not.toContain(notYet);
    expect(claimed.filter((id) => backlog.includes(id))).toHaveLength(7);
  });

  it('hands out a batch in order: the retries, then the first attempts, each the longest due first', async () => {
    // Written in the reverse of their due order, so the table's order is not the answer's.
    const firsts: string[] = [];
    for (let second = 1; second <= 5; second++)
      firsts.unshift(...(await enqueue(1, 0, `-${second} seconds`)));
    const retries: string[] = [];
    for (let second = 1; second <= 3; second++)
      retries.unshift(...(await enqueue(1, 2, `-${second} seconds`)));

    expect((await queue.claim(10)).map((d) => d.id)).toEqual([...retries, ...firsts]);
  });

  it('hands a delivery to one claim only, and again once its lease has run out', async () => {
    const ids = await enqueue(50, 0, '-1 second');
    const [a, b] = await Promise.all([queue.claim(30), queue.claim(30)]);
    const taken = [...a, ...b].map((d) => d.id);
    expect(taken).toHaveLength(50);
    expect(new Set(taken)).toEqual(new Set(ids));
    expect(await queue.claim(30)).toEqual([]);

    // What a worker that died mid-attempt leaves: its claim, now run out.
    await pool.query(
      `UPDATE webhook_deliveries SET locked_until = now() - interval '1 second' WHERE id = $1`,
      [ids[0]],
    );
    expect((await queue.claim(30)).map((d) => d.id)).toEqual([ids[0]]);
  });

  it('hands every due delivery to the consumer, the retries in its first batch, and stops cleanly', async () => {
    await enqueue(150, 0, '-2 seconds');
    const retries = await enqueue(5, 2, '-10 milliseconds');
    const attempted: ClaimedDelivery[] = [];
    queue.consume(async (claimed) => {
      attempted.push(claimed);
      await queue.complete({ delivery: claimed, attemptedAt: new Date(), outcome: outcome(204, true) });
    });
    try {
      await until(() => attempted.length === 155, 20_000, 'every delivery attempted');
    } finally {
      await queue.stop();
    }
    // The first claim filled the 64 slots; the retries were in it although the backlog fell due before them.
    expect(attempted.slice(0, 64).map((d) => d.id)).toEqual(expect.arrayContaining(retries));
    expect(new Set(attempted.map((d) => d.id)).size).toBe(155);
    expect(await queue.depth()).toMatchObject({ depth: 0 });
  });

  it('records successes together: their log lines, the deliveries ended and the failing streak over', async () => {
    await pool.query(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1`, [endpointId]);
    await enqueue(3, 1, '-1 second');
    const claimed = await queue.claim(10);
    await Promise.all(
      claimed.map((d) =>
        queue.complete({ delivery: d, attemptedAt: new Date(), outcome: outcome(200, true) }),
      ),
    );
    for (const d of claimed) {
      expect(await delivery(d.id)).toMatchObject({
        status: 'succeeded',
        attempt_count: 2,
        ended: true,
        released: true,
        last_status_code: 200,
      });
    }
    const logged = await pool.query(`SELECT success, status_code FROM webhook_attempts`);
    expect(logged.rows).toEqual(Array(3).fill({ success: true, status_code: 200 }));
    expect(await endpoint()).toMatchObject({ enabled: true, failing: false });
  });

  it('settles a failure: a retry in database time, the configuration failing, the claim released', async () => {
    const [id] = await enqueue(1, 0, '-1 second');
    const [claimed] = await queue.claim(1);
    const status = await queue.settle({
      delivery: claimed!,
      attemptedAt: new Date(),
      outcome: outcome(503),
      trackHealth: true,
      afterFailure: { retryInMs: 5_000 },
    });
    expect(status).toBe('pending');
    expect(await delivery(id!)).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      later: true,
      released: true,
    });
    expect(await endpoint()).toMatchObject({ enabled: true, failing: true, disabled_reason: null });
    expect(await queue.claim(1)).toEqual([]);
  });

  it('settles a 410: the configuration disabled as gone and the delivery failed instead of retried', async () => {
    const [id] = await enqueue(1, 0, '-1 second');
    const [claimed] = await queue.claim(1);
    const status = await queue.settle({
      delivery: claimed!,
      attemptedAt: new Date(),
      outcome: outcome(410),
      trackHealth: true,
      afterFailure: { retryInMs: 5_000 },
    });
    expect(status).toBe('failed');
    expect(await delivery(id!)).toMatchObject({ status: 'failed', ended: true });
    expect(await endpoint()).toMatchObject({ enabled: false, disabled_reason: 'gone' });
  });

  it('settles concurrent failures of one configuration, one of them a 410, without losing any', async () => {
    const ids = await enqueue(12, 0, '-1 second');
    const claimed = await queue.claim(12);
    const statuses = await Promise.all(
      claimed.map((d, index) =>
        queue.settle({
          delivery: d,
          attemptedAt: new Date(),
          outcome: outcome(index === 5 ? 410 : 503),
          trackHealth: true,
          afterFailure: { retryInMs: 5_000 },
        }),
      ),
    );
    expect(statuses[5]).toBe('failed');
    const logged = await pool.query(`SELECT count(*)::int AS n FROM webhook_attempts`);
    expect(logged.rows[0].n).toBe(12);
    for (const id of ids) expect(await delivery(id)).toMatchObject({ attempt_count: 1, released: true });
    expect(await endpoint()).toMatchObject({ enabled: false, failing: true, disabled_reason: 'gone' });
  });

  it('settles after five days of failures by disabling the configuration as failing', async () => {
    await pool.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute'`);
    await enqueue(1, 0, '-1 second');
    const [claimed] = await queue.claim(1);
    const status = await queue.settle({
      delivery: claimed!,
      attemptedAt: new Date(),
      outcome: outcome(500),
      trackHealth: true,
      afterFailure: { retryInMs: 5_000 },
    });
    expect(status).toBe('failed');
    expect(await endpoint()).toMatchObject({ enabled: false, disabled_reason: 'failing' });
  });

  it('settles a failed manual re-send without touching status or schedule, and a test without health', async () => {
    const [id] = await enqueue(1, 3, '2 hours');
    const owned = await queue.claimOwned('0xabc', id!, 50);
    expect(owned).toMatchObject({ id });
    expect(await queue.claimOwned('0xabc', id!, 50)).toBe('busy');
    expect(await queue.claimOwned('0xdef', id!, 50)).toBe('not_found');
    const kept = await queue.settle({
      delivery: owned as ClaimedDelivery,
      attemptedAt: new Date(),
      outcome: outcome(500),
      trackHealth: false,
      afterFailure: 'keep',
    });
    expect(kept).toBe('pending');
    expect(await delivery(id!)).toMatchObject({
      status: 'pending',
      attempt_count: 4,
      later: true,
      released: true,
    });
    expect(await endpoint()).toMatchObject({ enabled: true, failing: false });
  });
});
