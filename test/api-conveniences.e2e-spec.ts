import { http } from './utils/http.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

/**
 * Additions for integrators: cursor pagination on the key list, the history and the delivery log; status and
 * history of the caller's own wallet without `address`; deleting a webhook configuration; and, outside
 * production, refusals that name the setting to change.
 */
describe('API conveniences', () => {
  let t: TestApp;
  let api: ReturnType<typeof http>;
  let owner: WalletSession;
  let other: WalletSession;

  beforeAll(async () => {
    // https only, private addresses allowed: configurations point at 127.0.0.1 and, with the workers off, are
    // never sent to.
    t = await startTestApp({ env: { WEBHOOK_WORKERS: 'false', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    api = http(t.url);
    [owner, other] = await Promise.all([login(t.url), login(t.url)]);
  });
  afterAll(() => t.close());

  /** Every item of a list, a page of `limit` at a time, following X-Next-Cursor; and the page sizes. */
  async function walk(path: string, token: string, limit: number) {
    const items: Array<{ id: string }> = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await api.get(`${path}${separator}${query}`, { token });
      expect(page.status).toBe(200);
      expect(Array.isArray(page.body)).toBe(true);
      items.push(...page.body);
      sizes.push(page.body.length);
      cursor = page.headers.get('x-next-cursor');
    } while (cursor !== null);
    return { items, sizes };
  }

  it('pages the key list with limit and X-Next-Cursor; without them it is the whole array as before', async () => {
    for (let i = 0; i < 7; i++) {
      const created = await api.post('/api-keys', {
        token: owner.token,
        body: { label: `key ${i}`, scopes: ['READ_ONLY'] },
      });
      expect(created.status).toBe(200);
    }
    const whole = await api.get('/api-keys/list', { token: owner.token });
    expect(whole.body).toHaveLength(7);
    expect(whole.headers.get('x-next-cursor')).toBeNull();

    const { items, sizes } = await walk('/api-keys/list', owner.token, 3);
    expect(sizes).toEqual([3, 3, 1]);
    expect(items).toEqual(whole.body);
  });

  it('pages the history, and reads status and history of the caller when no address is sent', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await api.post('/subscriptions/renew', { token: owner.token, body: {} })).status).toBe(200);
    }
    const status = await api.get('/subscriptions/status', { token: owner.token });
    expect(status.body).toMatchObject({ address: owner.address, status: 'active' });
    const whole = await api.get('/subscriptions/history', { token: owner.token });
    expect(whole.body).toHaveLength(5);
    expect(whole.body).toEqual(
      (await api.get(`/subscriptions/history?address=${owner.address}`, { token: owner.token })).body,
    );
    const { items, sizes } = await walk('/subscriptions/history', owner.token, 2);
    expect(sizes).toEqual([2, 2, 1]);
    expect(items).toEqual(whole.body);

    const none = await api.get('/subscriptions/history', { token: other.token });
    expect(none.body).toEqual([]);
  });

  it('refuses a cursor of another list, a forged one and a limit out of range', async () => {
    const page = await api.get('/api-keys/list?limit=1', { token: owner.token });
    const keysCursor = page.headers.get('x-next-cursor')!;
    const wrongList = await api.get(`/subscriptions/history?cursor=${keysCursor}`, { token: owner.token });
    expect(wrongList.status).toBe(400);
    expect(wrongList.body.details).toEqual({ code: 'invalid_cursor' });

    const forged = Buffer.from(JSON.stringify(['api_keys', '1', "x' OR '1'='1"])).toString('base64url');
    const refused = await api.get(`/api-keys/list?cursor=${forged}`, { token: owner.token });
    expect(refused.status).toBe(400);
    expect(refused.body.details.code).toBe('invalid_cursor');

    for (const limit of ['0', '201', 'ten']) {
      const bad = await api.get(`/api-keys/list?limit=${limit}`, { token: owner.token });
      expect(bad.status).toBe(400);
      expect(bad.body.details.code).toBe('validation_failed');
    }
  });

  it("deletes a webhook configuration (204), only the owner's, and frees a place under the limit", async () => {
    const save = (n: number, token = owner.token) =>
      api.post('/webhooks', { token, body: { url: `https://127.0.0.1:9/hook/${n}` } });
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) {
      const saved = await save(n);
      expect(saved.status).toBe(200);
      ids.push(saved.body.id);
    }
    const full = await save(10);
    expect(full.status).toBe(400);
    expect(full.body.details.code).toBe('webhook_limit_reached');

    const foreign = await api.send('DELETE', `/webhooks/${ids[0]}`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.details).toEqual({ code: 'webhook_not_found' });
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      expect((await api.send('DELETE', `/webhooks/${id}`, { token: owner.token })).status).toBe(404);
    }

    const deleted = await api.send('DELETE', `/webhooks/${ids[0]}`, { token: owner.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.send('DELETE', `/webhooks/${ids[0]}`, { token: owner.token })).status).toBe(404);
    const listed = await api.get('/webhooks', { token: owner.token });
    expect(listed.body.map((webhook: { id: string }) => webhook.id)).toEqual(ids.slice(1));
    expect((await save(10)).status).toBe(200);
  });

  it('names WEBHOOK_ALLOW_HTTP in the refusal of an http URL outside production', async () => {
    const refused = await api.post('/webhooks', {
      token: other.token,
      body: { url: 'http://127.0.0.1:9/hook' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual({
      code: 'webhook_url_invalid',
      reason: 'http_not_allowed',
      setting: 'WEBHOOK_ALLOW_HTTP',
    });
    expect(refused.body.error).toContain('WEBHOOK_ALLOW_HTTP=true');
  });

  it('says a missing required field is required, and keeps the constraint for a bad one', async () => {
    const webhook = await api.post('/webhooks', { token: other.token, body: {} });
    expect(webhook.status).toBe(400);
    expect(webhook.body).toMatchObject({
      error: 'url is required',
      details: { code: 'validation_failed', fields: [{ field: 'url', message: 'url is required' }] },
    });
    const key = await api.post('/api-keys', { token: other.token, body: {} });
    expect(key.status).toBe(400);
    expect(key.body.details.fields).toEqual([
      { field: 'label', message: 'label is required' },
      { field: 'scopes', message: 'scopes is required' },
    ]);
    const long = await api.post('/webhooks', {
      token: other.token,
      body: { url: `https://a.test/${'x'.repeat(2048)}` },
    });
    expect(long.body.details.fields).toEqual([
      { field: 'url', message: 'url must be shorter than or equal to 2048 characters' },
    ]);
  });
});
