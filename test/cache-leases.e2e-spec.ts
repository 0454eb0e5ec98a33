import pg from 'pg';
import { CacheLeases } from '../src/cache/cache-leases.service.js';
import { InvalidationLog } from '../src/cache/invalidation-log.service.js';
import { sql } from '../src/database/sql.js';
import { http } from './utils/http.js';
import { sleep } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

const LEASE_MS = 3000;
const ENV = { CACHE_COHERENCE: 'acknowledged', CACHE_LEASE_MS: String(LEASE_MS), WEBHOOK_WORKERS: 'false' };

/**
 * CACHE_COHERENCE=acknowledged (CacheLeases): an instance answers from its caches without reading the invalidation
 * log while its lease holds, because every writer waits for every live instance to apply its change. A in this
 * process, B a process of its own (stopped, resumed and killed by the tests).
 */
describe('cache coherence by acknowledged writes', () => {
  let a: TestApp;
  let b: ServiceProcess;
  let db: pg.Client;

  /** Instances whose lease holds and that have acknowledged a read. */
  const liveLeases = async (): Promise<number> =>
    Number(
      (await db.query('SELECT count(*) FROM cache_leases WHERE lease_until > now() AND applied IS NOT NULL'))
        .rows[0].count,
    );

  /** Lease rows, live or not (an instance that stopped deleted its own). */
  const leaseRows = async (): Promise<number> =>
    Number((await db.query('SELECT count(*) FROM cache_leases')).rows[0].count);

  const waitFor = async (what: string, condition: () => Promise<boolean>, withinMs = 10_000) => {
    const deadline = Date.now() + withinMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
      await sleep(25);
    }
  };

  const startB = async () => {
    b = await startServiceProcess(a.databaseUrl, ENV);
    await waitFor('both leases held', async () => (await liveLeases()) === 2);
  };

  /** A READ_ONLY key created on `where` by a new wallet. */
  const readOnlyKey = async (where: string) => {
    const owner = await login(where);
    const created = await http(where).post('/api-keys', {
      token: owner.token,
      body: { label: 'x', scopes: ['READ_ONLY'] },
    });
    expect(created.status).toBe(200);
    return { owner, key: created.body as { id: string; key: string } };
  };

  const sessionCode = async (where: string, credential: string): Promise<string | null> => {
    const answer = await http(where).get('/auth/session', { token: credential });
    return answer.status === 200 ? null : (answer.body.details.code as string);
  };

  beforeAll(async () => {
    a = await startTestApp({ env: ENV });
    db = new pg.Client({ connectionString: a.databaseUrl });
    await db.connect();
    await startB();
  });
  afterAll(async () => {
    await b?.kill('SIGKILL');
    await db.end();
    await a.close();
  });

  it('answers warm protected reads without reading the log', async () => {
    const { key } = await readOnlyKey(a.url);
    expect(await sessionCode(a.url, key.key)).toBeNull();
    const log = a.app.get(InvalidationLog);
    const leases = a.app.get(CacheLeases);
    await waitFor('the lease held', async () => leases.current);
    const before = log.counts.reads;
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(await sessionCode(a.url, key.key)).toBeNull();
    // Only the lease's own renewals read it (every LEASE_MS / 3), not the hundred requests.
    const renewals = Math.ceil((performance.now() - started) / (LEASE_MS / 3)) + 1;
    expect(log.counts.reads - before).toBeLessThanOrEqual(renewals);
  });

  it('honours on the next request to the other instance a revocation, a logout and a renewal', async () => {
    const { owner, key } = await readOnlyKey(a.url);
    const status = `/subscriptions/status?address=${owner.address}`;
    // Cached as live and as unsubscribed on both.
    for (const where of [a.url, b.url]) {
      expect(await sessionCode(where, key.key)).toBeNull();
      expect((await http(where).get(status, { token: owner.token })).body.status).toBe('none');
    }
    expect(
      (await http(a.url).post('/api-keys/revoke', { token: owner.token, body: { id: key.id } })).status,
    ).toBe(200);
    expect(await sessionCode(b.url, key.key)).toBe('api_key_revoked');

    expect((await http(b.url).post('/subscriptions/renew', { token: owner.token, body: {} })).status).toBe(
      200,
    );
    expect((await http(a.url).get(status, { token: owner.token })).body.status).toBe('active');

    expect((await http(b.url).post('/auth/logout', { token: owner.token })).status).toBeLessThan(300);
    expect(await sessionCode(a.url, owner.token)).toBe('token_revoked');
  });

  it('applies a change made by SQL outside the service within moments, on its notification', async () => {
    const { key } = await readOnlyKey(a.url);
    for (const where of [a.url, b.url]) expect(await sessionCode(where, key.key)).toBeNull();
    const revoke = sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${key.id}`;
    await db.query(revoke.text, revoke.values);
    // Nobody waits on an operator's SQL: the relaxation the mode states. It arrives by NOTIFY.
    for (const where of [a.url, b.url]) {
      await waitFor(
        'the SQL revocation applied',
        async () => (await sessionCode(where, key.key)) !== null,
        2000,
      );
      expect(await sessionCode(where, key.key)).toBe('api_key_revoked');
    }
  });

  it('lets a write wait out a paused instance, which reads the log first when it resumes', async () => {
    const { owner, key } = await readOnlyKey(a.url);
    expect(await sessionCode(b.url, key.key)).toBeNull();
    b.child.kill('SIGSTOP');
    try {
      // B's lease holds for up to LEASE_MS more: the revocation's answer waits until it has run out.
      const revoked = await http(a.url).post('/api-keys/revoke', {
        token: owner.token,
        body: { id: key.id },
      });
      expect(revoked.status).toBe(200);
      // B's lease ran out (A's is the one left, if A renewed it in time on a loaded machine).
      expect(await liveLeases()).toBeLessThan(2);
    } finally {
      b.child.kill('SIGCONT');
    }
    // B still holds the key as live in its cache, and may read this request before the notification that came
    // while it was paused: its own lease has run out on its clock, so it reads the log first.
    expect(await sessionCode(b.url, key.key)).toBe('api_key_revoked');
    // It finds its lease ended and joins again.
    await waitFor('B joined again', async () => (await liveLeases()) === 2);
  });

  it('stops waiting for a stopped instance at once and for a killed one after its lease', async () => {
    let session: WalletSession = await login(a.url);
    await b.kill('SIGTERM');
    // A stopping instance leaves: its row is gone, and writes do not wait for it.
    expect(await leaseRows()).toBe(1);
    expect((await http(a.url).post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(
      200,
    );

    await startB();
    session = await login(a.url);
    const { key } = await readOnlyKey(a.url);
    expect(await sessionCode(b.url, key.key)).toBeNull();
    await b.kill('SIGKILL');
    const waitsBefore = a.app.get(CacheLeases).counts.waits;
    expect((await http(a.url).post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(
      200,
    );
    expect(a.app.get(CacheLeases).counts.waits).toBeGreaterThan(waitsBefore);
    expect(await liveLeases()).toBeLessThan(2);
    expect(a.app.get(CacheLeases).counts.waitsCutShort).toBe(0);
    await startB();
  });
});
