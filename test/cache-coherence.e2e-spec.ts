import { jest } from '@jest/globals';
import pg from 'pg';
import { CACHE_TOPICS, CACHED_TABLES } from '../src/cache/cache-topics.js';
import { InvalidationLog } from '../src/cache/invalidation-log.service.js';
import { invalidationTrigger } from '../src/cache/invalidation-trigger.js';
import { PG_POOL } from '../src/database/pg-pool.js';
import { http } from './utils/http.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login } from './utils/wallet.js';

/**
 * The database publishes cache invalidations (triggers), so a change made by any path, even plain SQL from outside
 * the service, is seen on the next request by an instance that had the old answer cached.
 */
describe('cache coherence through database triggers', () => {
  let t: TestApp;
  let db: pg.Client;
  let api: ReturnType<typeof http>;

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_WORKERS: 'false' } });
    api = http(t.url);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  /** A signed-in wallet and a READ_ONLY key it created (the API's answer: `id`, `key`). */
  const readOnlyKey = async () => {
    const owner = await login(t.url);
    const created = await api.post('/api-keys', {
      token: owner.token,
      body: { label: 'x', scopes: ['READ_ONLY'] },
    });
    return { owner, created: created.body as { id: string; key: string } };
  };

  const invalidations = async (topic: string): Promise<number> =>
    Number(
      (await db.query('SELECT count(*) FROM cache_invalidations WHERE topic = $1', [topic])).rows[0].count,
    );

  it('has triggers that write exactly the topics the caches listen to', async () => {
    const { rows } = await db.query<{ source: string }>(
      `SELECT prosrc AS source FROM pg_proc WHERE prosrc LIKE '%invalidate_cache%' AND proname <> 'invalidate_cache'`,
    );
    const written = new Set(
      rows.flatMap(({ source }) =>
        [...source.matchAll(/invalidate_cache"?\(\s*'([a-z_]+)'/g)].map((m) => m[1]),
      ),
    );
    expect([...written].sort()).toEqual(Object.values(CACHE_TOPICS).sort());
  });

  it('lists in CACHED_TABLES exactly the tables whose triggers write invalidations', async () => {
    const { rows } = await db.query<{ table: string }>(
      `SELECT DISTINCT c.relname AS table FROM pg_trigger t
         JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE NOT t.tgisinternal AND p.prosrc LIKE '%invalidate_cache%'`,
    );
    expect(rows.map((row) => row.table).sort()).toEqual([...CACHED_TABLES].sort());
  });

  it('has the plans trigger exactly as invalidationTrigger writes it', async () => {
    const [create] = invalidationTrigger({
      table: 'plans',
      topic: CACHE_TOPICS.plan,
      key: (row) => `${row}."id"`,
    }).up;
    const { rows } = await db.query<{ source: string }>(
      `SELECT prosrc AS source FROM pg_proc WHERE proname = 'plans_invalidate'`,
    );
    expect(rows.map(({ source }) => source)).toEqual([create!.split('$$')[1]]);
  });

  it("writes a table's trigger with invalidationTrigger: old and new keys, watched columns only", async () => {
    const trigger = invalidationTrigger({
      table: 'scratch_cached',
      topic: CACHE_TOPICS.subscription,
      key: (row) => `${row}."address"`,
      watched: ['address', 'plan'],
    });
    await db.query('BEGIN');
    try {
      await db.query('CREATE TABLE scratch_cached (address text PRIMARY KEY, plan text, seen_at int)');
      for (const statement of trigger.up) await db.query(statement);
      const { rows: mark } = await db.query<{ id: string }>(
        'SELECT coalesce(max(id), 0) AS id FROM cache_invalidations',
      );
      await db.query(`INSERT INTO scratch_cached VALUES ('0xa', 'basic', 1)`);
      await db.query(`UPDATE scratch_cached SET seen_at = 2`);
      await db.query(`UPDATE scratch_cached SET plan = 'pro'`);
      await db.query(`UPDATE scratch_cached SET address = '0xb'`);
      await db.query(`DELETE FROM scratch_cached`);
      const { rows } = await db.query<{ topic: string; key: string }>(
        'SELECT topic, key FROM cache_invalidations WHERE id > $1 ORDER BY id',
        [mark[0]!.id],
      );
      expect(rows.map(({ topic, key }) => `${topic} ${key}`)).toEqual([
        'subscription 0xa', // insert
        'subscription 0xa', // plan changed (not seen_at)
        'subscription 0xa', // address changed: the old key and the new
        'subscription 0xb',
        'subscription 0xb', // delete
      ]);
      for (const statement of trigger.down) await db.query(statement);
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it('refuses a key revoked by SQL on its next request', async () => {
    const { created } = await readOnlyKey();
    expect((await api.get('/auth/session', { token: created.key })).status).toBe(200);
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.id]);
    const refused = await api.get('/auth/session', { token: created.key });
    expect(refused.status).toBe(401);
    expect(refused.body.details.code).toBe('api_key_revoked');
  });

  it('writes no invalidation when only a key’s last use is recorded', async () => {
    const { created } = await readOnlyKey();
    const before = await invalidations('api_key');
    await db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [created.id]);
    expect(await invalidations('api_key')).toBe(before);
    expect((await api.get('/auth/session', { token: created.key })).status).toBe(200);
  });

  it('refuses a session token revoked by SQL on its next request', async () => {
    const session = await login(t.url);
    const current = await api.get('/auth/session', { token: session.token });
    expect(current.status).toBe(200);
    const { jti } = JSON.parse(Buffer.from(session.token.split('.')[1]!, 'base64url').toString()) as {
      jti: string;
    };
    await db.query('INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2)', [jti, session.expiresAt]);
    const refused = await api.get('/auth/session', { token: session.token });
    expect(refused.status).toBe(401);
    expect(refused.body.details.code).toBe('token_revoked');
  });

  it('applies a revocation whose transaction was still open at an earlier read, once it commits', async () => {
    const { created } = await readOnlyKey();
    const late = new pg.Client({ connectionString: t.databaseUrl });
    await late.connect();
    try {
      await late.query('BEGIN');
      await late.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.id]);
      // Reads while it is open see it running; transactions that begin and end meanwhile are applied.
      expect((await api.get('/auth/session', { token: created.key })).status).toBe(200);
      await login(t.url);
      expect((await api.get('/auth/session', { token: created.key })).status).toBe(200);
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    const refused = await api.get('/auth/session', { token: created.key });
    expect(refused.status).toBe(401);
    expect(refused.body.details.code).toBe('api_key_revoked');
  });

  it('applies each invalidation once, even while a long transaction keeps older ones from being forgotten', async () => {
    const applied: string[] = [];
    t.app.get(InvalidationLog).onInvalidation(CACHE_TOPICS.apiKey, (key) => applied.push(key));
    const { owner, created } = await readOnlyKey();
    const long = new pg.Client({ connectionString: t.databaseUrl });
    await long.connect();
    try {
      // An open transaction that has written (an operator's migration, a stuck session) holds back the oldest
      // running transaction id of every snapshot.
      await long.query('BEGIN');
      await long.query('CREATE TEMPORARY TABLE held (n int)');
      await long.query('INSERT INTO held VALUES (1)');
      await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.id]);
      for (let i = 0; i < 5; i++) await api.get('/auth/session', { token: owner.token });
      expect((await api.get('/auth/session', { token: created.key })).status).toBe(401);
      expect(applied.length).toBe(1);
    } finally {
      await long.query('ROLLBACK');
      await long.end();
    }
  });

  it('shows a subscription changed by SQL on the next status read', async () => {
    const session = await login(t.url);
    const status = `/subscriptions/status?address=${session.address}`;
    expect((await api.post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(200);
    expect((await api.get(status, { token: session.token })).body.cancelAtPeriodEnd).toBe(false);
    await db.query('UPDATE subscriptions SET cancel_at_period_end = true WHERE address = $1', [
      session.address.toLowerCase(),
    ]);
    expect((await api.get(status, { token: session.token })).body.cancelAtPeriodEnd).toBe(true);
  });

  it('serves the plan of a status or entitlements read from its cache, and a plan changed by SQL on the next', async () => {
    await db.query(
      `INSERT INTO plans (id, name, period_seconds, price_per_period, features)
       VALUES ('cached', 'Cached', 3600, 0, '{export.csv}')`,
    );
    const session = await login(t.url);
    const renewed = await api.post('/subscriptions/renew', {
      token: session.token,
      body: { plan: 'cached' },
    });
    expect(renewed.body.plan).toEqual({ id: 'cached', name: 'Cached' });
    const status = `/subscriptions/status?address=${session.address}`;
    const entitled = `/entitlements?address=${session.address}&feature=export.csv`;
    const features = `/entitlements?address=${session.address}`;
    const reads = [status, entitled, features];
    for (const path of reads) expect((await api.get(path, { token: session.token })).status).toBe(200);

    const pool = t.app.get<symbol, pg.Pool>(PG_POOL);
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    const spy = jest.spyOn(pool, 'query').mockImplementation(((config: pg.QueryConfig) => {
      statements.push(config.text);
      return query(config);
    }) as typeof pool.query);
    try {
      for (const path of reads) expect((await api.get(path, { token: session.token })).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    // Warm: the invalidation reads of the barrier, and nothing of plans, subscriptions or credentials. The delivery
    // queue's wake for the renewal's event is its own statement, sent up to a notify span later: not a read.
    expect(statements.length).toBeGreaterThan(0);
    const queried = statements.filter((text) => !text.startsWith('SELECT pg_notify('));
    expect(queried.filter((text) => !text.includes('cache_invalidations'))).toEqual([]);

    await db.query(`UPDATE plans SET name = 'Renamed', features = '{api.calls}' WHERE id = 'cached'`);
    expect((await api.get(status, { token: session.token })).body.plan).toEqual({
      id: 'cached',
      name: 'Renamed',
    });
    expect((await api.get(entitled, { token: session.token })).body).toMatchObject({
      entitled: false,
      plan: { id: 'cached', name: 'Renamed' },
    });
    expect((await api.get(features, { token: session.token })).body.features).toEqual(['api.calls']);
  });
});
