import pg from 'pg';
import { http } from './utils/http.js';
import { sleep } from './utils/receiver.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

const DAY_MS = 86_400_000;
const ENV = {
  API_KEYS_MAX_PER_WALLET: '3',
  EVENTS_MAX_PER_WALLET_PER_DAY: '60',
  API_KEY_MAX_LIFETIME_DAYS: '30',
};

/** What one signed-in wallet can make the service store, and how much one answer may hold. */
describe('the bounds of one wallet', () => {
  let app: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    app = await startTestApp({ env: ENV });
    db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await app.close();
  });

  const createKey = (token: string, body: Record<string, unknown> = {}) =>
    http(app.url).post('/api-keys', { token, body: { label: 'bounded', scopes: ['FULL'], ...body } });

  describe('live API keys (API_KEYS_MAX_PER_WALLET)', () => {
    it('holds under concurrent creation, and frees a place when a key is revoked or expires', async () => {
      const owner = await login(app.url);
      const burst = await Promise.all(Array.from({ length: 8 }, () => createKey(owner.token)));
      expect(burst.filter((response) => response.status === 200)).toHaveLength(3);
      const refused = burst.filter((response) => response.status !== 200);
      expect(refused).toHaveLength(5);
      for (const response of refused) {
        expect(response.status).toBe(400);
        expect(response.body.details).toEqual({ code: 'api_key_limit_reached', limit: 3 });
      }

      const [first, second] = burst.filter((response) => response.status === 200);
      await http(app.url).post('/api-keys/revoke', { token: owner.token, body: { id: first!.body.id } });
      expect((await createKey(owner.token)).status).toBe(200);
      expect((await createKey(owner.token)).status).toBe(400);

      await db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        second!.body.id,
      ]);
      expect((await createKey(owner.token)).status).toBe(200);
      const listed = await http(app.url).get('/api-keys/list', { token: owner.token });
      expect(listed.body).toHaveLength(5);
    });

    it('keeps the unpaged list bounded, with a cursor to the older keys', async () => {
      const owner = await login(app.url);
      // Revoked keys stay listed: a wallet that created and revoked many has more than the live limit.
      await db.query(
        `INSERT INTO api_keys (owner_address, label, scopes, key_digest, prefix, last4, revoked_at, created_at)
         SELECT $1, 'old', '{FULL}', sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'tg_0000000', '0000',
           now(), now() - n * interval '1 second'
         FROM generate_series(1, 1001) AS n`,
        [owner.address.toLowerCase()],
      );
      const listed = await http(app.url).get('/api-keys/list', { token: owner.token });
      expect(listed.status).toBe(200);
      expect(listed.body).toHaveLength(1000);
      const next = listed.headers.get('x-next-cursor');
      expect(next).toBeTruthy();
      const rest = await http(app.url).get(`/api-keys/list?cursor=${next}`, { token: owner.token });
      expect(rest.body).toHaveLength(1);
      expect(rest.headers.get('x-next-cursor')).toBeNull();
    });
  });

  describe('expiry of the keys a key creates', () => {
    let owner: WalletSession;
    beforeAll(async () => {
      owner = await login(app.url);
    });

    it('gives a key created without expiresAt its creator key expiry, and refuses a later one', async () => {
      const expiresAt = new Date(Date.now() + 3_000).toISOString();
      const parent = await createKey(owner.token, { expiresAt });
      expect(parent.status).toBe(200);

      const child = await createKey(parent.body.key);
      expect(child.status).toBe(200);
      expect(child.body.expiresAt).toBe(expiresAt);
      const later = await createKey(parent.body.key, {
        expiresAt: new Date(Date.now() + DAY_MS).toISOString(),
      });
      expect(later.status).toBe(400);
      expect(later.body.details).toEqual({ code: 'invalid_expiry', creatorExpiresAt: expiresAt });

      await sleep(Date.parse(expiresAt) - Date.now() + 50);
      const status = await http(app.url).get('/auth/session', { token: child.body.key });
      expect(status.status).toBe(401);
      expect(status.body.details.code).toBe('api_key_expired');
    });

    it('binds keys created without expiresAt to API_KEY_MAX_LIFETIME_DAYS, not to the session token', async () => {
      const before = Date.now();
      const created = await createKey(owner.token);
      expect(created.status).toBe(200);
      const expiresAt = Date.parse(created.body.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);
      const earlier = new Date(Date.now() + DAY_MS).toISOString();
      expect((await createKey(owner.token, { expiresAt: earlier })).body.expiresAt).toBe(earlier);
    });
  });

  describe('events (EVENTS_MAX_PER_WALLET_PER_DAY) and the history', () => {
    it('refuses changes past the daily budget, even concurrent ones, but never a cancel or a revocation', async () => {
      const owner = await login(app.url);
      const key = await createKey(owner.token);
      expect(key.status).toBe(200);
      const renew = () => http(app.url).post('/subscriptions/renew', { token: owner.token, body: {} });
      const burst = await Promise.all(Array.from({ length: 70 }, renew));
      // The key's creation was the first of the 60 events.
      expect(burst.filter((response) => response.status === 200)).toHaveLength(59);
      const refused = burst.filter((response) => response.status !== 200);
      expect(refused).toHaveLength(11);
      for (const response of refused) {
        expect(response.status).toBe(409);
        expect(response.body.details).toEqual({ code: 'event_limit_reached', limit: 60, windowHours: 24 });
      }
      expect((await createKey(owner.token)).status).toBe(409);

      const cancel = await http(app.url).post('/subscriptions/cancel', { token: owner.token, body: {} });
      expect(cancel.status).toBe(200);
      const revoke = await http(app.url).post('/api-keys/revoke', {
        token: owner.token,
        body: { id: key.body.id },
      });
      expect(revoke.status).toBe(200);

      // Always one page: 60 changes are more than the default page of 50.
      const history = await http(app.url).get('/subscriptions/history', { token: owner.token });
      expect(history.status).toBe(200);
      expect(history.body).toHaveLength(50);
      const next = history.headers.get('x-next-cursor');
      expect(next).toBeTruthy();
      const rest = await http(app.url).get(`/subscriptions/history?cursor=${next}`, { token: owner.token });
      expect(rest.body).toHaveLength(10);
      expect(rest.headers.get('x-next-cursor')).toBeNull();
    });
  });
});
