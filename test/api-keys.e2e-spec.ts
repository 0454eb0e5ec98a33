import pg from 'pg';
import { http } from './utils/http.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

/** The session token's id (`jti`), which a key it creates records as its creator. */
const sessionId = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;

describe('API keys', () => {
  let t: TestApp;
  let api: ReturnType<typeof http>;
  let owner: WalletSession;

  beforeAll(async () => {
    t = await startTestApp();
    api = http(t.url);
    owner = await login(t.url);
  });
  afterAll(async () => {
    await t.close();
  });

  const createKey = async (
    session: WalletSession | string,
    scopes: string[],
    path = '/api-keys',
    label = 'server',
  ) => {
    const token = typeof session === 'string' ? session : session.token;
    const response = await api.post(path, { token, body: { label, scopes } });
    expect(response.status).toBe(200);
    return response.body as {
      id: string;
      key: string;
      label: string;
      scopes: string[];
      prefix: string;
      createdAt: string;
    };
  };

  it.each(['/api-keys', '/api-keys/create'])('creates a key through POST %s, shown once', async (path) => {
    const created = await createKey(owner, ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE'], path, `via ${path}`);
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key: expect.stringMatching(/^tg_[0-9A-Za-z]{38}$/),
      label: `via ${path}`,
      scopes: ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE'],
      prefix: created.key.slice(0, 10),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      createdBy: { type: 'session', id: sessionId(owner.token) },
      expiresAt: null,
    });
    const session = await api.get('/auth/session', { token: created.key });
    expect(session.status).toBe(200);
    expect(session.body).toEqual({
      address: owner.address,
      via: 'api_key',
      scopes: ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE'],
      operator: false,
      expiresAt: null,
    });
  });

  it('never stores the key: only its digest, prefix and last 4', async () => {
    const created = await createKey(owner, ['READ_ONLY']);
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const { rows } = await client.query(`SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = $1`, [
      created.id,
    ]);
    await client.end();
    expect(rows[0].row).not.toContain(created.key);
    expect(rows[0].row).not.toContain(created.key.slice(3, 35));
    expect(t.logs.map((line) => JSON.stringify(line)).join('\n')).not.toContain(created.key);
  });

  it("lists the caller's keys newest first, revoked included, without secrets; others' keys absent", async () => {
    const wallet = await login(t.url);
    const first = await createKey(wallet, ['READ_ONLY'], '/api-keys', 'first');
    const second = await createKey(wallet, ['FULL'], '/api-keys/create', 'second');
    await api.post('/api-keys/revoke', { token: wallet.token, body: { id: first.id } });
    const stranger = await login(t.url);
    await createKey(stranger, ['READ_ONLY'], '/api-keys', 'stranger');

    const list = await api.get('/api-keys/list', { token: wallet.token });
    expect(list.status).toBe(200);
    expect(list.body.map((key: { label: string }) => key.label)).toEqual(['second', 'first']);
    expect(list.body[0]).toEqual({
      id: second.id,
      label: 'second',
      scopes: ['FULL'],
      prefix: second.key.slice(0, 10),
      last4: second.key.slice(-4),
      createdAt: second.createdAt,
      lastUsedAt: null,
      revoked: false,
      revokedAt: null,
      createdBy: { type: 'session', id: sessionId(wallet.token) },
      expiresAt: null,
      expired: false,
    });
    expect(list.body[1]).toMatchObject({ id: first.id, revoked: true, revokedAt: expect.any(String) });
    expect(list.text).not.toContain(second.key);
  });

  it("revokes: refused at once, revoking twice is 200, another wallet's key or an unknown id is 404", async () => {
    const created = await createKey(owner, ['READ_ONLY']);
    expect((await api.get('/auth/session', { token: created.key })).status).toBe(200);
    const revoked = await api.post('/api-keys/revoke', { token: owner.token, body: { id: created.id } });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({
      id: created.id,
      revoked: true,
      revokedAt: expect.any(String),
      alsoRevoked: [],
    });
    const refused = await api.get('/auth/session', { token: created.key });
    expect(refused.status).toBe(401);
    expect(refused.body.details.code).toBe('api_key_revoked');

    const again = await api.post('/api-keys/revoke', { token: owner.token, body: { id: created.id } });
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);

    const stranger = await login(t.url);
    const foreign = await api.post('/api-keys/revoke', {
      token: stranger.token,
      body: { id: (await createKey(owner, ['READ_ONLY'])).id },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.details.code).toBe('api_key_not_found');
    const unknown = await api.post('/api-keys/revoke', {
      token: owner.token,
      body: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.status).toBe(404);
    const malformed = await api.post('/api-keys/revoke', { token: owner.token, body: { id: 'nope' } });
    expect(malformed.status).toBe(400);
  });

  it('refuses keys of the wrong shape or checksum with 401 invalid_api_key', async () => {
    const created = await createKey(owner, ['READ_ONLY']);
    const last = created.key.at(-1)!;
    const badChecksum = created.key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const alteredBody = created.key.slice(0, 5) + (created.key[5] === 'x' ? 'y' : 'x') + created.key.slice(6);
    for (const token of [badChecksum, alteredBody, 'tg_short', `${created.key}0`]) {
      const response = await api.get('/auth/session', { token });
      expect({ status: response.status, code: response.body.details.code }).toEqual({
        status: 401,
        code: 'invalid_api_key',
      });
    }
  });

  it('validates the create body', async () => {
    for (const body of [
      { label: '', scopes: ['READ_ONLY'] },
      { label: 'x'.repeat(101), scopes: ['READ_ONLY'] },
      { label: 'x', scopes: [] },
      { label: 'x', scopes: ['READ_ONLY', 'READ_ONLY'] },
      { label: 'x', scopes: ['ADMIN'] },
      { label: 'x' },
      { label: 'x', scopes: ['READ_ONLY'], extra: 1 },
    ]) {
      const response = await api.post('/api-keys', { token: owner.token, body });
      expect({ body, status: response.status, code: response.body.details.code }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      });
    }
  });

  it('records api_key.created and api_key.revoked events and updates lastUsedAt', async () => {
    const wallet = await login(t.url);
    const created = await createKey(wallet, ['READ_ONLY']);
    await api.get('/auth/session', { token: created.key });
    await api.post('/api-keys/revoke', { token: wallet.token, body: { id: created.id } });
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const events = await client.query(
      `SELECT type, data FROM events WHERE address = $1 ORDER BY created_at`,
      [wallet.address.toLowerCase()],
    );
    await client.end();
    expect(events.rows.map((row) => row.type)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(JSON.stringify(events.rows)).not.toContain(created.key);
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 30 && !lastUsedAt; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const list = await api.get('/api-keys/list', { token: wallet.token });
      lastUsedAt = list.body[0].lastUsedAt;
    }
    expect(lastUsedAt).not.toBeNull();
  });

  it('lets only FULL credentials manage keys', async () => {
    const readOnly = await createKey(owner, ['READ_ONLY']);
    const manage = await createKey(owner, ['SUBSCRIPTIONS_MANAGE']);
    const full = await createKey(owner, ['FULL']);
    for (const key of [readOnly.key, manage.key]) {
      const response = await api.get('/api-keys/list', { token: key });
      expect(response.status).toBe(403);
      expect(response.body.details.code).toBe('insufficient_scope');
    }
    expect((await api.get('/api-keys/list', { token: full.key })).status).toBe(200);
    const minted = await api.post('/api-keys', {
      token: full.key,
      body: { label: 'minted', scopes: ['READ_ONLY'] },
    });
    expect(minted.status).toBe(200);
    const logout = await api.post('/auth/logout', { token: full.key });
    expect(logout.status).toBe(403);
    expect(logout.body.details.code).toBe('jwt_required');
  });
});

describe('API key revocation across instances', () => {
  it('refuses a key revoked on instance A on instance B at once', async () => {
    const a = await startTestApp();
    const b = await startServiceProcess(a.databaseUrl);
    try {
      const owner = await login(a.url);
      const created = await http(a.url).post('/api-keys', {
        token: owner.token,
        body: { label: 'x', scopes: ['READ_ONLY'] },
      });
      expect((await http(b.url).get('/auth/session', { token: created.body.key })).status).toBe(200);
      await http(a.url).post('/api-keys/revoke', { token: owner.token, body: { id: created.body.id } });
      const onB = await http(b.url).get('/auth/session', { token: created.body.key });
      expect(onB.status).toBe(401);
      expect(onB.body.details.code).toBe('api_key_revoked');
    } finally {
      await b.kill();
      await a.close();
    }
  });
});
