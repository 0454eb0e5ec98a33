import jwt from 'jsonwebtoken';
import pg from 'pg';
import { http } from './utils/http.js';
import { sleep } from './utils/receiver.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/**
 * Session tokens beyond the happy path: correctly signed tokens with claims this service never issues, "sign out
 * everywhere" twice within one second, and the opt-in revocation of the keys the wallet's sessions created.
 */
describe('session tokens', () => {
  let t: TestApp;
  let db: pg.Client;
  const api = () => http(t.url);

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_WORKERS: 'false' } });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  /** The code GET /auth/session answers with (null for 200). */
  const refusal = async (token: string): Promise<string | null> => {
    const response = await api().get('/auth/session', { token });
    if (response.status === 200) return null;
    expect(response.status).toBe(401);
    return String(response.body.details.code);
  };

  const nowSeconds = () => Math.floor(Date.now() / 1000);

  /** A token signed with the service's secret, carrying these claims (jsonwebtoken keeps a given `iat`). */
  const signed = (claims: Record<string, unknown>): string =>
    jwt.sign({ iss: 'tollgate', aud: 'tollgate-api', ...claims }, TEST_JWT_SECRET, { algorithm: 'HS256' });

  describe('odd claims in a correctly signed token', () => {
    const address = newWallet().address;
    const valid = () => ({
      sub: address,
      iat: nowSeconds(),
      exp: nowSeconds() + 3600,
      jti: '6f1c2b7d-8e90-4b0f-9a41-3f1c2b7d8e90',
      gen: 0,
    });

    it('accepts the well-formed baseline, so each refusal below is about its one claim', async () => {
      expect(await refusal(signed(valid()))).toBeNull();
    });

    it.each([
      ['a jti that is not a UUID', { jti: 'not-a-uuid' }],
      ['a 10 KB jti', { jti: 'a'.repeat(10_240) }],
      ['a numeric jti', { jti: 42 }],
      ['exp 1e308', { exp: 1e308 }],
      ['a fractional exp', { exp: nowSeconds() + 3600.5 }],
      ['an exp beyond JWT_TTL_SECONDS after iat', { exp: nowSeconds() + 86_400 * 365 }],
      ['an iat a year in the future', { iat: nowSeconds() + 86_400 * 365, exp: nowSeconds() + 86_400 * 366 }],
      ['an iat two minutes in the future', { iat: nowSeconds() + 120 }],
      ['an iat after exp', { iat: nowSeconds() + 30, exp: nowSeconds() + 10 }],
      ['a negative gen', { gen: -1 }],
      ['a gen of 1e308', { gen: 1e308 }],
      ['a string gen', { gen: '1' }],
      ['an audience list that holds ours', { aud: ['tollgate-api', 'someone-else'] }],
      ['an audience list of ours alone', { aud: ['tollgate-api'] }],
    ])('refuses %s: 401 invalid_token, on the header and the cookie', async (_what, odd) => {
      const token = signed({ ...valid(), ...odd });
      const header = await api().get('/auth/session', { token });
      expect(header.status).toBe(401);
      expect(header.body.details).toEqual({ code: 'invalid_token' });
      const cookie = await api().get('/subscriptions/status', { headers: { cookie: `tg_session=${token}` } });
      expect(cookie.status).toBe(401);
      expect(cookie.body.details).toEqual({ code: 'invalid_token' });
    });

    it.each([
      ['a crit header naming an extension', { crit: ['exp'] }],
      ['a key id', { kid: 'k1' }],
      ['a content type', { cty: 'JWT' }],
    ])(
      'refuses a JOSE header carrying %s: 401 invalid_token, on the header and the cookie',
      async (_what, extra) => {
        const token = jwt.sign({ iss: 'tollgate', aud: 'tollgate-api', ...valid() }, TEST_JWT_SECRET, {
          algorithm: 'HS256',
          header: { alg: 'HS256', typ: 'JWT', ...extra },
        });
        const header = await api().get('/auth/session', { token });
        expect(header.status).toBe(401);
        expect(header.body.details).toEqual({ code: 'invalid_token' });
        const cookie = await api().get('/subscriptions/status', {
          headers: { cookie: `tg_session=${token}` },
        });
        expect(cookie.status).toBe(401);
        expect(cookie.body.details).toEqual({ code: 'invalid_token' });
      },
    );

    it('tolerates an iat slightly ahead of this clock (another instance may run a little fast)', async () => {
      expect(await refusal(signed({ ...valid(), iat: nowSeconds() + 30 }))).toBeNull();
    });
  });

  describe('sign out everywhere is exact', () => {
    const logoutAll = async (session: WalletSession, body?: unknown) => {
      const response = await api().post('/auth/logout-all', { token: session.token, body });
      expect(response.status).toBe(200);
      return response.body as { revoked: true; notBefore: string; revokedKeys: number };
    };

    it('refuses a session opened between two sign-outs within one second, and the token that called it', async () => {
      const account = newWallet();
      let sameSecond = 0;
      for (let round = 0; round < 4; round++) {
        const a = await login(t.url, account);
        // Start at the top of a second so that both sign-outs surely fall in the same one.
        await sleep(1000 - (Date.now() % 1000));
        const first = await logoutAll(a);
        const b = await login(t.url, account);
        expect(await refusal(b.token)).toBeNull();
        const second = await logoutAll(b);
        if (
          Math.floor(Date.parse(first.notBefore) / 1000) === Math.floor(Date.parse(second.notBefore) / 1000)
        )
          sameSecond++;
        expect(await refusal(a.token)).toBe('token_revoked');
        expect(await refusal(b.token)).toBe('token_revoked');
        expect(await refusal(b.cookie.replace('tg_session=', ''))).toBe('token_revoked');
        // Signing in again after it works at once.
        const c = await login(t.url, account);
        expect(await refusal(c.token)).toBeNull();
      }
      // The case this test is about did happen (each round needs well under a second).
      expect(sameSecond).toBeGreaterThan(0);
    });

    it('still checks a token issued before tokens carried a generation by its iat', async () => {
      const session = await login(t.url);
      const legacy = (iat: number) =>
        signed({ sub: session.address, iat, exp: iat + 3600, jti: '0c6f9f0e-8a3b-4d2c-9e51-7b2a1d4c3e60' });
      const before = legacy(nowSeconds() - 5);
      expect(await refusal(before)).toBeNull();
      await logoutAll(session);
      expect(await refusal(before)).toBe('token_revoked');
      expect(await refusal(legacy(nowSeconds() + 2))).toBeNull();
    });
  });

  describe('sign out everywhere with revokeKeys', () => {
    const createKey = async (token: string, label: string) => {
      const created = await api().post('/api-keys', { token, body: { label, scopes: ['FULL'] } });
      expect(created.status).toBe(200);
      return created.body as { id: string; key: string };
    };

    it('by default leaves every key live', async () => {
      const session = await login(t.url);
      const key = await createKey(session.token, 'production');
      const cut = await api().post('/auth/logout-all', { token: session.token });
      expect(cut.status).toBe(200);
      expect(cut.body.revokedKeys).toBe(0);
      expect(await refusal(key.key)).toBeNull();
    });

    it("revokes the keys the wallet's sessions created and the keys those made, with their events", async () => {
      const session = await login(t.url);
      const other = await login(t.url, session.account);
      const fromSession = await createKey(session.token, 'from the session');
      const fromOtherSession = await createKey(other.token, 'from another session');
      const fromKey = await createKey(fromSession.key, 'made by a key');
      // A key whose creator was never recorded (created before creators were kept) is no session's.
      const unrecorded = await createKey(session.token, 'creator unknown');
      await db.query('UPDATE api_keys SET created_by_session = NULL WHERE id = $1', [unrecorded.id]);
      const otherWallet = await login(t.url);
      const strangers = await createKey(otherWallet.token, "another wallet's");
      for (const key of [fromSession, fromOtherSession, fromKey, unrecorded, strangers]) {
        expect(await refusal(key.key)).toBeNull();
      }

      const cut = await api().post('/auth/logout-all', { token: session.token, body: { revokeKeys: true } });
      expect(cut.status).toBe(200);
      expect(cut.body).toEqual({ revoked: true, notBefore: expect.any(String), revokedKeys: 3 });

      for (const key of [fromSession, fromOtherSession, fromKey]) {
        expect(await refusal(key.key)).toBe('api_key_revoked');
      }
      expect(await refusal(unrecorded.key)).toBeNull();
      expect(await refusal(strangers.key)).toBeNull();
      expect(await refusal(session.token)).toBe('token_revoked');
      const events = await db.query<{ id: string }>(
        `SELECT data->>'id' AS id FROM events WHERE type = 'api_key.revoked' AND address = $1`,
        [session.address.toLowerCase()],
      );
      expect(events.rows.map((row) => row.id).sort()).toEqual(
        [fromSession.id, fromOtherSession.id, fromKey.id].sort(),
      );
      const fresh = await login(t.url, session.account);
      const listed = await api().get('/api-keys/list', { token: fresh.token });
      expect(
        Object.fromEntries(
          (listed.body as { label: string; revoked: boolean }[]).map((k) => [k.label, k.revoked]),
        ),
      ).toEqual({
        'from the session': true,
        'from another session': true,
        'made by a key': true,
        'creator unknown': false,
      });
    });

    /** Resolves once a statement of this database containing `text` is waiting for a lock. */
    const waitingFor = async (text: string): Promise<void> => {
      for (;;) {
        const waiting = await db.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND position($1 in query) > 0`,
          [text],
        );
        if (waiting.rowCount) return;
        await sleep(20);
      }
    };

    // The sign-out meets the creation's lock in its statement over the sessions' keys, or in a pass over the keys
    // made by keys: either way the new key commits after that statement began, and must still be revoked.
    it.each([
      ['a key a session created', 0],
      ['a key made by such a key', 1],
    ])('also revokes a key being created at that moment by %s', async (_creator, depth) => {
      const session = await login(t.url);
      const tree = [await createKey(session.token, 'from the session')];
      if (depth === 1) tree.push(await createKey(tree[0]!.key, 'made by a key'));
      // Holding the events table keeps the creation's transaction open after it has locked its creator and
      // inserted the new key, so the sign-out meets that lock.
      const holder = new pg.Client({ connectionString: t.databaseUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE events IN SHARE MODE');
        const creating = createKey(tree.at(-1)!.key, 'made meanwhile');
        await waitingFor('INSERT INTO events');
        const cutting = api().post('/auth/logout-all', { token: session.token, body: { revokeKeys: true } });
        await waitingFor('UPDATE api_keys SET revoked_at');
        await holder.query('COMMIT');
        const made = await creating;
        const cut = await cutting;
        expect(cut.status).toBe(200);
        expect(cut.body.revokedKeys).toBe(tree.length + 1);
        for (const key of [...tree, made]) expect(await refusal(key.key)).toBe('api_key_revoked');
        const events = await db.query<{ id: string }>(
          `SELECT data->>'id' AS id FROM events WHERE type = 'api_key.revoked' AND address = $1`,
          [session.address.toLowerCase()],
        );
        expect(events.rows.map((row) => row.id).sort()).toEqual([...tree, made].map((key) => key.id).sort());
      } finally {
        await holder.end();
      }
    });

    it('refuses a body it does not know: 400 validation_failed, nobody signed out', async () => {
      const session = await login(t.url);
      for (const body of [{ revokeKeys: 'yes' }, { everything: true }]) {
        const refused = await api().post('/auth/logout-all', { token: session.token, body });
        expect(refused.status).toBe(400);
        expect(refused.body.details.code).toBe('validation_failed');
      }
      expect(await refusal(session.token)).toBeNull();
    });
  });
});
