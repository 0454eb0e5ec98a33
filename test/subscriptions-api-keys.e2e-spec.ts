import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { http } from './utils/http.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

describe('subscriptions with API keys', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let api: ReturnType<typeof http>;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp({
      env: { OPERATOR_ADDRESSES: operatorWallet.address, WEBHOOK_WORKERS: 'false' },
    });
    api = http(t.url);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const createKey = async (owner: WalletSession, scopes: string[]) => {
    const response = await api.post('/api-keys', {
      token: owner.token,
      body: { label: scopes.join('+'), scopes },
    });
    expect(response.status).toBe(200);
    return response.body as { id: string; key: string };
  };
  const status = (token: string, address: string) =>
    api.get(`/subscriptions/status?address=${address}`, { token });
  const history = (token: string, address: string) =>
    api.get(`/subscriptions/history?address=${address}`, { token });
  const renew = (token: string, body: object = {}, idempotencyKey?: string) =>
    api.post('/subscriptions/renew', {
      token,
      body,
      headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
    });
  const cancel = (token: string, body: object = {}) => api.post('/subscriptions/cancel', { token, body });

  it('lets a READ_ONLY key read the status and history, and nothing more', async () => {
    const owner = await login(t.url);
    const { key } = await createKey(owner, ['READ_ONLY']);
    const read = await status(key, owner.address);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ address: owner.address, status: 'none' });
    expect((await history(key, owner.address)).status).toBe(200);
    for (const response of [await renew(key), await cancel(key)]) {
      expect(response.status).toBe(403);
      expect(response.body.details.code).toBe('insufficient_scope');
    }
    expect((await status(owner.token, owner.address)).body.status).toBe('none');
  });

  it("lets a SUBSCRIPTIONS_MANAGE key renew and cancel the creator's subscription, recorded as its doing", async () => {
    const owner = await login(t.url);
    const { id, key } = await createKey(owner, ['SUBSCRIPTIONS_MANAGE']);
    const renewed = await renew(key);
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ address: owner.address, status: 'active' });
    const canceled = await cancel(key, { address: owner.address.toLowerCase() });
    expect(canceled.status).toBe(200);
    expect(canceled.body.cancelAtPeriodEnd).toBe(true);
    expect((await status(owner.token, owner.address)).body).toEqual(canceled.body);

    const entries = (await history(key, owner.address)).body;
    expect(entries.map((entry: { type: string; actor: string }) => [entry.type, entry.actor])).toEqual([
      ['canceled', owner.address],
      ['renewed', owner.address],
    ]);
    const { rows } = await db.query(`SELECT actor_key_id FROM subscription_events WHERE address = $1`, [
      owner.address.toLowerCase(),
    ]);
    expect(rows.map((row) => row.actor_key_id)).toEqual([id, id]);
  });

  it("keeps a key to its creator's address unless the creator is an operator", async () => {
    const [owner, other, operator] = await Promise.all([
      login(t.url),
      login(t.url),
      login(t.url, operatorWallet),
    ]);
    const ownersKey = (await createKey(owner, ['SUBSCRIPTIONS_MANAGE'])).key;
    for (const response of [
      await status(ownersKey, other.address),
      await renew(ownersKey, { address: other.address }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.details.code).toBe('address_forbidden');
    }
    const operatorsKey = (await createKey(operator, ['SUBSCRIPTIONS_MANAGE'])).key;
    const renewed = await renew(operatorsKey, { address: other.address });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ address: other.address, status: 'active' });
    expect((await status(operatorsKey, other.address)).body).toEqual(renewed.body);
  });

  it('scopes an Idempotency-Key to the API key that sent it', async () => {
    const owner = await login(t.url);
    const [first, second] = [
      await createKey(owner, ['SUBSCRIPTIONS_MANAGE']),
      await createKey(owner, ['FULL']),
    ];
    const idempotencyKey = randomUUID();
    const once = await renew(first.key, {}, idempotencyKey);
    expect((await renew(first.key, {}, idempotencyKey)).body).toEqual(once.body);
    // The same key from the wallet's other API key, or from its session, is a different request.
    const viaOtherKey = await renew(second.key, {}, idempotencyKey);
    const viaSession = await renew(owner.token, {}, idempotencyKey);
    expect([viaOtherKey.status, viaSession.status]).toEqual([200, 200]);
    expect((await history(owner.token, owner.address)).body).toHaveLength(3);
  });
});
