import pg from 'pg';
import { http } from './utils/http.js';
import { sleep, until } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

/** One sweep of each instance, and then some (API_KEY_SWEEP_INTERVAL_MS is 5 s). */
const AFTER_A_SWEEP_MS = 6_000;

const ENV = { API_KEY_MAX_LIFETIME_DAYS: '30', API_KEY_EXPIRY_NOTICE_HOURS: '1' };

/**
 * Keys that expire and keys that count their use, with two instances on one database (A in this process, B a
 * process of its own), both running the background workers: each key's expiry notices go out once, not once per
 * instance, and an expired key is refused by both at once.
 */
describe('API keys that expire and count their use', () => {
  let a: TestApp;
  let b: ServiceProcess;
  let db: pg.Client;
  let owner: WalletSession;

  beforeAll(async () => {
    a = await startTestApp({ env: ENV });
    b = await startServiceProcess(a.databaseUrl, ENV);
    db = new pg.Client({ connectionString: a.databaseUrl });
    await db.connect();
    owner = await login(a.url);
  });
  afterAll(async () => {
    await db.end();
    await b.kill();
    await a.close();
  });

  const createKey = async (body: Record<string, unknown>, token = owner.token) =>
    http(a.url).post('/api-keys', { token, body: { label: 'expiring', scopes: ['FULL'], ...body } });

  /** The code each instance answers GET /auth/session with (null for 200). */
  const refusals = async (key: string): Promise<(string | null)[]> =>
    Promise.all(
      [a.url, b.url].map(async (url) => {
        const response = await http(url).get('/auth/session', { token: key });
        if (response.status === 200) return null;
        expect(response.status).toBe(401);
        return String(response.body.details.code);
      }),
    );

  const eventsOf = async (type: string, keyId: string): Promise<number> =>
    (await db.query(`SELECT 1 FROM events WHERE type = $1 AND data->>'id' = $2`, [type, keyId])).rowCount ??
    0;

  describe('expiry', () => {
    it('refuses an expiresAt in the past, beyond API_KEY_MAX_LIFETIME_DAYS, or not a time', async () => {
      const past = await createKey({ expiresAt: new Date(Date.now() - 1000).toISOString() });
      expect(past.status).toBe(400);
      expect(past.body.details).toEqual({ code: 'invalid_expiry' });
      const tooFar = await createKey({ expiresAt: new Date(Date.now() + 31 * 86_400_000).toISOString() });
      expect(tooFar.status).toBe(400);
      expect(tooFar.body.details).toEqual({ code: 'invalid_expiry', maxLifetimeDays: 30 });
      const notATime = await createKey({ expiresAt: 'next tuesday' });
      expect(notATime.status).toBe(400);
      expect(notATime.body.details.code).toBe('validation_failed');
      const listed = await http(a.url).get('/api-keys/list', { token: owner.token });
      expect(listed.body).toEqual([]);
    });

    it('refuses an expired key with api_key_expired on every instance at once, and says so once', async () => {
      const expiresAt = new Date(Date.now() + 3_000).toISOString();
      const created = await createKey({ expiresAt });
      expect(created.status).toBe(200);
      expect(created.body.expiresAt).toBe(expiresAt);
      const key = created.body as { id: string; key: string };
      // Cached as live on both instances before it expires.
      expect(await refusals(key.key)).toEqual([null, null]);
      const before = await http(b.url).get('/api-keys/list', { token: owner.token });
      expect(before.body[0]).toMatchObject({ id: key.id, expiresAt, expired: false });
      // Created within the notice period: its notice went out with it.
      expect(await eventsOf('api_key.expiring', key.id)).toBe(1);

      await sleep(Date.parse(expiresAt) - Date.now() + 50);
      expect(await refusals(key.key)).toEqual(['api_key_expired', 'api_key_expired']);
      const after = await http(a.url).get('/api-keys/list', { token: owner.token });
      expect(after.body[0]).toMatchObject({ id: key.id, expiresAt, expired: true, revoked: false });

      await until(async () => (await eventsOf('api_key.expired', key.id)) > 0, 15_000, 'api_key.expired');
      await sleep(AFTER_A_SWEEP_MS);
      expect(await eventsOf('api_key.expired', key.id)).toBe(1);
      expect(await eventsOf('api_key.expiring', key.id)).toBe(1);
      const { rows } = await db.query<{ data: Record<string, unknown>; created_at: Date }>(
        `SELECT data, created_at FROM events WHERE type = 'api_key.expired' AND data->>'id' = $1`,
        [key.id],
      );
      expect(rows[0]!.data).toMatchObject({ id: key.id, expiresAt, revokedAt: null });
      expect(rows[0]!.created_at.toISOString()).toBe(expiresAt);
    });

    it('sends api_key.expiring once when a key enters its notice period, whichever instance sweeps', async () => {
      const created = await createKey({ expiresAt: new Date(Date.now() + 2 * 3_600_000).toISOString() });
      expect(created.status).toBe(200);
      const id = created.body.id as string;
      expect(await eventsOf('api_key.expiring', id)).toBe(0);
      // Half an hour left, within API_KEY_EXPIRY_NOTICE_HOURS=1: the next sweep of either instance notices it.
      await db.query(`UPDATE api_keys SET expires_at = now() + interval '30 minutes' WHERE id = $1`, [id]);
      await until(async () => (await eventsOf('api_key.expiring', id)) > 0, 15_000, 'api_key.expiring');
      await sleep(AFTER_A_SWEEP_MS);
      expect(await eventsOf('api_key.expiring', id)).toBe(1);
      expect(await eventsOf('api_key.expired', id)).toBe(0);
      expect(await refusals(created.body.key as string)).toEqual([null, null]);
    });

    it('gives keys without expiresAt the longest lifetime API_KEY_MAX_LIFETIME_DAYS allows', async () => {
      const before = Date.now();
      const created = await createKey({});
      const expiresAt = Date.parse(created.body.expiresAt as string);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
      expect(await refusals(created.body.key as string)).toEqual([null, null]);
    });
  });

  describe('usage', () => {
    const usage = (id: string, url = a.url, token = owner.token) =>
      http(url).get(`/api-keys/${id}/usage`, { token });

    it('counts requests per day at once on the instance that served them, and soon on the others', async () => {
      const created = await createKey({ label: 'metered' });
      const key = created.body as { id: string; key: string };
      const start = Date.now();
      for (let i = 0; i < 5; i++) {
        expect((await http(a.url).get('/auth/session', { token: key.key })).status).toBe(200);
      }
      const first = await usage(key.id);
      expect(first.status).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      expect(first.body.id).toBe(key.id);
      expect(first.body.days).toHaveLength(30);
      expect(first.body.days[0]).toEqual({ day: today, requests: 5 });
      expect(first.body.days[29].day).toBe(new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10));
      expect(first.body.days.slice(1).every((day: { requests: number }) => day.requests === 0)).toBe(true);
      const listed = await http(a.url).get('/api-keys/list', { token: owner.token });
      const row = (listed.body as { id: string; lastUsedAt: string | null }[]).find((k) => k.id === key.id)!;
      expect(Date.parse(row.lastUsedAt!)).toBeGreaterThanOrEqual(start);

      for (let i = 0; i < 3; i++) {
        expect((await http(b.url).get('/auth/session', { token: key.key })).status).toBe(200);
      }
      // Each instance's own answer counts its requests at once; the other's once they are written (every 10 s).
      expect((await usage(key.id, b.url)).body.days[0].requests).toBeGreaterThanOrEqual(3);
      for (const url of [a.url, b.url]) {
        await until(
          async () => (await usage(key.id, url)).body.days[0].requests === 8,
          25_000,
          `8 on ${url}`,
        );
      }
    });

    it("answers 404 api_key_not_found for another wallet's key or an id that is not a UUID", async () => {
      const stranger = await login(a.url);
      const theirs = await createKey({ label: 'theirs' }, stranger.token);
      for (const id of [theirs.body.id as string, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
        const refused = await usage(id);
        expect(refused.status).toBe(404);
        expect(refused.body.details.code).toBe('api_key_not_found');
      }
    });

    it('writes what it counted when it stops', async () => {
      const created = await createKey({ label: 'until shutdown' });
      const key = created.body as { id: string; key: string };
      for (let i = 0; i < 4; i++) {
        expect((await http(a.url).get('/auth/session', { token: key.key })).status).toBe(200);
      }
      await a.close();
      a = await startTestApp({ env: ENV, keepData: true });
      expect((await usage(key.id)).body.days[0].requests).toBe(4);
    });
  });
});
