import { existsSync } from 'node:fs';
import pg from 'pg';
import { poolConfig } from '../src/database/data-source.js';
import { DatabaseAvailability } from '../src/database/database-availability.js';
import { Database } from '../src/database/database.service.js';
import { sql } from '../src/database/sql.js';
import { http, renewalsAcrossInstances } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import { PGBOUNCER, startPgBouncer, type PgBouncer } from './utils/pgbouncer.mjs';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { truncateAll, workerDatabaseUrl } from './utils/test-database.js';
import { login } from './utils/wallet.js';

const available = existsSync(PGBOUNCER);
if (!available && process.env.CI) {
  throw new Error(`${PGBOUNCER} is missing: CI installs Debian's pgbouncer (.ci/run)`);
}
if (!available) {
  console.warn(`skipping the PgBouncer tests: ${PGBOUNCER} is not installed (apt-get install pgbouncer)`);
}

(available ? describe : describe.skip)('behind PgBouncer in transaction mode', () => {
  let direct: string;
  let bouncer: PgBouncer;

  beforeAll(async () => {
    direct = await workerDatabaseUrl();
    await truncateAll(direct);
    // A server pool smaller than the instances' pools together, as in production, where that is the point of it.
    bouncer = await startPgBouncer({ databaseUrl: direct, serverPoolSize: 8, maxClients: 200 });
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  it('refuses the statement timeout as a startup parameter: DATABASE_POOLER=transaction does not send it', async () => {
    const asDirect = new pg.Pool(poolConfig({ url: bouncer.url, pooler: 'none' }));
    await expect(asDirect.query('SELECT 1')).rejects.toThrow(
      /unsupported startup parameter: statement_timeout/,
    );
    await asDirect.end();
    const pooled = new pg.Pool(poolConfig({ url: bouncer.url, pooler: 'transaction' }));
    await expect(pooled.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await pooled.end();
  });

  it("still cancels a transaction's statement that outlasts the timeout, and leaves no setting on the server connection", async () => {
    const pool = new pg.Pool(
      poolConfig({ url: bouncer.url, pooler: 'transaction', statementTimeoutMs: 300, poolSize: 1 }),
    );
    const db = new Database(pool, new DatabaseAvailability(), {
      pooler: 'transaction',
      statementTimeoutMs: 300,
    });
    try {
      const started = Date.now();
      await expect(db.transaction((tx) => tx.run(sql`SELECT pg_sleep(5)`))).rejects.toMatchObject({
        code: '57014',
      });
      expect(Date.now() - started).toBeLessThan(3000);
      // SET LOCAL ended with the transaction: whichever server connection ran it is back to the server's default.
      const { rows } = await db.run<{ statement_timeout: string }>(sql`SHOW statement_timeout`);
      expect(rows[0]!.statement_timeout).toBe('0');
      // Named statements would collide on the shared server connections; behind the pooler they run unnamed.
      for (let i = 0; i < 3; i++) {
        await db.transaction((tx) => tx.runPrepared('tollgate_probe', sql`SELECT ${i}::int AS i`));
      }
    } finally {
      await pool.end();
    }
  });

  describe('two instances through it', () => {
    let a: ServiceProcess;
    let b: ServiceProcess;
    let receiver: Receiver;

    beforeAll(async () => {
      const env = {
        DATABASE_POOLER: 'transaction',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'info',
      };
      receiver = await Receiver.start();
      // Started together: their migrations meet at the transaction lock, through the pooler.
      [a, b] = await Promise.all([
        startServiceProcess(bouncer.url, env),
        startServiceProcess(bouncer.url, env),
      ]);
    });
    afterAll(async () => {
      await Promise.all([a?.kill(), b?.kill()]);
      await receiver?.close();
    });

    it('signs in, renews, cancels, and each instance sees what the other committed', () =>
      subscriptionAcross(a, b));

    it('creates an API key on one instance, uses it on the other, and a revocation holds on both', () =>
      keyAcross(a, b));

    it('delivers webhooks and records their completion', async () => {
      const renewals = 4;
      await renewalsAcrossInstances([a, b], receiver.url, renewals, login);
      await receiver.waitFor(renewals);
      const client = new pg.Client({ connectionString: direct });
      await client.connect();
      try {
        await until(
          async () => {
            const { rows } = await client.query<{ status: string }>('SELECT status FROM webhook_deliveries');
            return rows.length === renewals && rows.every((row) => row.status === 'succeeded');
          },
          10_000,
          'every delivery recorded as succeeded',
        );
      } finally {
        await client.end();
      }
      expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(renewals);
    });

    it('logs no statement the pooler broke, and warns that single statements lack a server-side timeout', () => {
      const logs = a.output.join('') + b.output.join('');
      // The test server has no default statement_timeout, as a fresh PostgreSQL.
      expect(a.output.join('')).toContain('statements outside a transaction run without a statement timeout');
      expect(logs).not.toMatch(/prepared statement|unsupported startup parameter|invalidations failed/);
    });
  });
  describe('two instances through it, with CACHE_COHERENCE=acknowledged and their sessions past it', () => {
    let a: ServiceProcess;
    let b: ServiceProcess;

    beforeAll(async () => {
      const env = {
        DATABASE_POOLER: 'transaction',
        DATABASE_SESSION_URL: direct,
        CACHE_COHERENCE: 'acknowledged',
        WEBHOOK_WORKERS: 'false',
      };
      [a, b] = await Promise.all([
        startServiceProcess(bouncer.url, env),
        startServiceProcess(bouncer.url, env),
      ]);
      const client = new pg.Client({ connectionString: direct });
      await client.connect();
      try {
        await until(
          async () =>
            Number(
              (
                await client.query(
                  'SELECT count(*) FROM cache_leases WHERE lease_until > now() AND applied IS NOT NULL',
                )
              ).rows[0].count,
            ) === 2,
          10_000,
          'both instances holding a cache lease',
        );
      } finally {
        await client.end();
      }
    });
    afterAll(async () => {
      await Promise.all([a?.kill(), b?.kill()]);
    });

    it('signs in, renews, cancels, and each instance sees what the other committed', () =>
      subscriptionAcross(a, b));

    it('creates an API key on one instance, uses it on the other, and a revocation holds on both', () =>
      keyAcross(a, b));
  });
});

/** A sign-in, renewal, cancel and logout on one instance, each seen on the next request to the other. */
async function subscriptionAcross(a: ServiceProcess, b: ServiceProcess): Promise<void> {
  const session = await login(a.url);
  const status = `/subscriptions/status?address=${session.address}`;
  expect((await http(b.url).get(status, { token: session.token })).body.status).toBe('none');
  expect((await http(a.url).post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(
    200,
  );
  expect((await http(b.url).get(status, { token: session.token })).body.status).toBe('active');
  expect((await http(b.url).post('/subscriptions/cancel', { token: session.token, body: {} })).status).toBe(
    200,
  );
  expect((await http(a.url).get(status, { token: session.token })).body.cancelAtPeriodEnd).toBe(true);
  // A second sign-in of the same wallet, on the other instance.
  expect((await login(b.url, session.account)).token).toEqual(expect.any(String));
  expect((await http(b.url).post('/auth/logout', { token: session.token })).status).toBeLessThan(300);
  expect((await http(a.url).get('/auth/session', { token: session.token })).status).toBe(401);
}

/** A key created on one instance works on both, and its revocation holds on both at once. */
async function keyAcross(a: ServiceProcess, b: ServiceProcess): Promise<void> {
  const owner = await login(a.url);
  const created = await http(a.url).post('/api-keys', {
    token: owner.token,
    body: { label: 'pooled', scopes: ['READ_ONLY'] },
  });
  expect(created.status).toBe(200);
  expect((await http(b.url).get('/auth/session', { token: created.body.key })).status).toBe(200);
  expect((await http(a.url).get('/auth/session', { token: created.body.key })).status).toBe(200);
  const revoked = await http(a.url).post('/api-keys/revoke', {
    token: owner.token,
    body: { id: created.body.id },
  });
  expect(revoked.status).toBe(200);
  const onB = await http(b.url).get('/auth/session', { token: created.body.key });
  expect(onB.status).toBe(401);
  expect(onB.body.details.code).toBe('api_key_revoked');
}
