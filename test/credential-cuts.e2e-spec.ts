import pg from 'pg';
import { http } from './utils/http.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

const sessionId = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;

/**
 * Credentials that must not outlive a cut: keys made by a revoked key, and every session of a wallet after "sign out
 * everywhere". Two instances on one database (A in this process, B a process of its own), each with the credentials
 * cached before the cut, so a refusal proves the invalidation reached both.
 */
describe('cutting credentials off on every instance', () => {
  let a: TestApp;
  let b: ServiceProcess;
  let db: pg.Client;

  beforeAll(async () => {
    a = await startTestApp({ env: { WEBHOOK_WORKERS: 'false' } });
    b = await startServiceProcess(a.databaseUrl, { WEBHOOK_WORKERS: 'false' });
    db = new pg.Client({ connectionString: a.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await b.kill();
    await a.close();
  });

  const instances = (): [string, string][] => [
    ['A', a.url],
    ['B', b.url],
  ];

  const createKey = async (url: string, token: string, label: string, scopes: string[]) => {
    const created = await http(url).post('/api-keys', { token, body: { label, scopes } });
    expect(created.status).toBe(200);
    return created.body as { id: string; key: string; createdBy: { type: string; id: string } };
  };

  /** The code each instance answers GET /auth/session with (null for 200). */
  const refusals = async (credential: { token?: string; cookie?: string }): Promise<(string | null)[]> =>
    Promise.all(
      instances().map(async ([, url]) => {
        const response = await http(url).get('/auth/session', {
          token: credential.token,
          headers: credential.cookie ? { cookie: credential.cookie } : {},
        });
        if (response.status === 200) return null;
        expect(response.status).toBe(401);
        return String(response.body.details.code);
      }),
    );

  describe('revoking a key revokes the keys it created', () => {
    it('refuses a key made by a key, and the keys that one made, on both instances at once', async () => {
      const owner = await login(a.url);
      const root = await createKey(a.url, owner.token, 'root', ['FULL']);
      expect(root.createdBy).toEqual({ type: 'session', id: sessionId(owner.token) });
      const child = await createKey(b.url, root.key, 'made by root', ['FULL']);
      expect(child.createdBy).toEqual({ type: 'api_key', id: root.id });
      const grandchild = await createKey(a.url, child.key, 'made by child', ['READ_ONLY']);
      expect(grandchild.createdBy).toEqual({ type: 'api_key', id: child.id });
      const sibling = await createKey(a.url, owner.token, 'made by the session', ['READ_ONLY']);

      const listed = await http(b.url).get('/api-keys/list', { token: owner.token });
      const creators = Object.fromEntries(
        (listed.body as { label: string; createdBy: unknown }[]).map((key) => [key.label, key.createdBy]),
      );
      expect(creators).toEqual({
        root: { type: 'session', id: sessionId(owner.token) },
        'made by root': { type: 'api_key', id: root.id },
        'made by child': { type: 'api_key', id: child.id },
        'made by the session': { type: 'session', id: sessionId(owner.token) },
      });

      // Every key is cached as live on both instances before the revocation.
      for (const key of [root, child, grandchild, sibling]) {
        expect(await refusals({ token: key.key })).toEqual([null, null]);
      }
      const revoked = await http(b.url).post('/api-keys/revoke', {
        token: owner.token,
        body: { id: root.id },
      });
      expect(revoked.status).toBe(200);
      expect([...(revoked.body.alsoRevoked as string[])].sort()).toEqual([child.id, grandchild.id].sort());

      for (const key of [root, child, grandchild]) {
        expect(await refusals({ token: key.key })).toEqual(['api_key_revoked', 'api_key_revoked']);
      }
      expect(await refusals({ token: sibling.key })).toEqual([null, null]);

      const after = await http(a.url).get('/api-keys/list', { token: owner.token });
      const revokedLabels = (after.body as { label: string; revoked: boolean }[])
        .filter((key) => key.revoked)
        .map((key) => key.label)
        .sort();
      expect(revokedLabels).toEqual(['made by child', 'made by root', 'root']);
      const events = await db.query<{ id: string }>(
        `SELECT data->>'id' AS id FROM events WHERE type = 'api_key.revoked' AND address = $1`,
        [owner.address.toLowerCase()],
      );
      expect(events.rows.map((row) => row.id).sort()).toEqual([root.id, child.id, grandchild.id].sort());
    });

    it('revokes only the subtree: revoking a child leaves its creator live', async () => {
      const owner = await login(a.url);
      const root = await createKey(a.url, owner.token, 'root', ['FULL']);
      const child = await createKey(a.url, root.key, 'child', ['FULL']);
      const grandchild = await createKey(a.url, child.key, 'grandchild', ['READ_ONLY']);
      const revoked = await http(a.url).post('/api-keys/revoke', { token: root.key, body: { id: child.id } });
      expect(revoked.body.alsoRevoked).toEqual([grandchild.id]);
      expect(await refusals({ token: root.key })).toEqual([null, null]);
      expect(await refusals({ token: grandchild.key })).toEqual(['api_key_revoked', 'api_key_revoked']);
    });

    it('revokes on a second revocation what was left live under a key revoked by hand', async () => {
      const owner = await login(a.url);
      const root = await createKey(a.url, owner.token, 'root', ['FULL']);
      const child = await createKey(a.url, root.key, 'child', ['READ_ONLY']);
      await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [root.id]);
      expect(await refusals({ token: child.key })).toEqual([null, null]);
      const again = await http(b.url).post('/api-keys/revoke', { token: owner.token, body: { id: root.id } });
      expect(again.status).toBe(200);
      expect(again.body.alsoRevoked).toEqual([child.id]);
      expect(await refusals({ token: child.key })).toEqual(['api_key_revoked', 'api_key_revoked']);
    });
  });

  describe('sign out everywhere', () => {
    it('refuses every earlier session of the wallet, header and cookie, on both instances; keys stay', async () => {
      const first = await login(a.url);
      const second = await login(b.url, first.account);
      const otherWallet = await login(a.url);
      const key = await createKey(a.url, first.token, 'production', ['READ_ONLY']);
      const sessions: WalletSession[] = [first, second];
      for (const session of sessions) {
        expect(await refusals({ token: session.token })).toEqual([null, null]);
        expect(await refusals({ cookie: session.cookie })).toEqual([null, null]);
      }

      const cut = await http(b.url).post('/auth/logout-all', { token: second.token });
      expect(cut.status).toBe(200);
      expect(cut.body).toEqual({ revoked: true, notBefore: expect.any(String), revokedKeys: 0 });
      expect(cut.headers.get('set-cookie')).toMatch(/^tg_session=; .*Max-Age=0/);

      for (const session of sessions) {
        expect(await refusals({ token: session.token })).toEqual(['token_revoked', 'token_revoked']);
        expect(await refusals({ cookie: session.cookie })).toEqual(['token_revoked', 'token_revoked']);
      }
      // Another wallet's session and the wallet's API keys are untouched.
      expect(await refusals({ token: otherWallet.token })).toEqual([null, null]);
      expect(await refusals({ token: key.key })).toEqual([null, null]);

      // Signing in again works at once, on either instance, whatever second the cut fell in.
      for (const [, url] of instances()) {
        const fresh = await login(url, first.account);
        expect(await refusals({ token: fresh.token })).toEqual([null, null]);
        expect(await refusals({ cookie: fresh.cookie })).toEqual([null, null]);
      }
    });

    it('needs a session: an API key gets 403 jwt_required and signs nobody out', async () => {
      const session = await login(a.url);
      const key = await createKey(a.url, session.token, 'full', ['FULL']);
      const refused = await http(a.url).post('/auth/logout-all', { token: key.key });
      expect(refused.status).toBe(403);
      expect(refused.body.details.code).toBe('jwt_required');
      expect(await refusals({ token: session.token })).toEqual([null, null]);
    });

    it('accepts a cookie-authenticated sign-out only from an allowed origin', async () => {
      const session = await login(a.url);
      const foreign = await http(a.url).post('/auth/logout-all', {
        headers: { cookie: session.cookie, origin: 'https://evil.example' },
      });
      expect(foreign.status).toBe(403);
      expect(foreign.body.details.code).toBe('csrf_origin_mismatch');
      expect(await refusals({ token: session.token })).toEqual([null, null]);
    });
  });
});
