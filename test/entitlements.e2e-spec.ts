import { http, type JsonResponse } from './utils/http.js';
import { sleep } from './utils/receiver.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/** Short enough to wait out: the plan `brief` and the `default` plan of this app run out within seconds. */
const SHORT = 2;
const FEATURES = ['api.calls', 'export.csv'];
const PRO = { id: 'pro', name: 'Pro', periodSeconds: 3600, pricePerPeriod: '0', features: FEATURES };
const BRIEF = { id: 'brief', name: 'Brief', periodSeconds: SHORT, pricePerPeriod: '0', features: FEATURES };
const DEFAULT = { id: 'default', name: 'Default' };

/**
 * GET /entitlements over HTTP: who may read whose, the features of a plan an operator created while the subscription
 * is in force and not after, and a change committed on one instance honoured by the next read on another (A in this
 * process, B a process of its own on the same database, both with the subscription cache).
 */
describe('entitlements', () => {
  const operatorWallet = newWallet();
  const env = { OPERATOR_ADDRESSES: operatorWallet.address, SUBSCRIPTION_PERIOD_SECONDS: String(SHORT) };
  let a: TestApp;
  let b: ServiceProcess;
  let api: ReturnType<typeof http>;
  let operator: WalletSession;

  const key = async (session: WalletSession, scopes: string[]): Promise<string> => {
    const created = await api.post('/api-keys', {
      token: session.token,
      body: { label: 'entitlements', scopes },
    });
    expect(created.status).toBe(200);
    return created.body.key as string;
  };
  const read = (token: string, address: string, feature?: string, url = a.url): Promise<JsonResponse> =>
    http(url).get(`/entitlements?address=${address}${feature === undefined ? '' : `&feature=${feature}`}`, {
      token,
    });
  const subscribe = async (session: WalletSession, plan: string): Promise<JsonResponse> => {
    const renewed = await api.post('/subscriptions/renew', { token: session.token, body: { plan } });
    expect(renewed).toMatchObject({ status: 200, body: { status: 'active', plan: { id: plan } } });
    return renewed;
  };

  beforeAll(async () => {
    a = await startTestApp({ env });
    api = http(a.url);
    b = await startServiceProcess(a.databaseUrl, env);
    operator = await login(a.url, operatorWallet);
    for (const plan of [PRO, BRIEF]) {
      expect((await api.post('/plans', { token: operator.token, body: plan })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await b.kill();
    await a.close();
  });

  it("answers a wallet's own READ_ONLY key: `default` and nothing in force before it subscribes", async () => {
    const wallet = await login(a.url);
    const own = await key(wallet, ['READ_ONLY']);
    expect(await read(own, wallet.address)).toEqual(
      expect.objectContaining({
        status: 200,
        body: { address: wallet.address, plan: DEFAULT, features: [], until: null },
      }),
    );
    expect((await read(own, wallet.address, 'export.csv')).body).toEqual({
      address: wallet.address,
      feature: 'export.csv',
      entitled: false,
      plan: DEFAULT,
      until: null,
    });
    // Without `address`, the caller's own; a lowercase address is the same wallet.
    expect((await http(a.url).get('/entitlements', { token: own })).body.address).toBe(wallet.address);
    expect((await read(own, wallet.address.toLowerCase())).body.address).toBe(wallet.address);
  });

  it("answers an operator's READ_ONLY key for anyone, and refuses another wallet's key as status does", async () => {
    const wallet = await login(a.url);
    const stranger = await login(a.url);
    await subscribe(wallet, 'pro');
    const operatorKey = await key(operator, ['READ_ONLY']);
    expect(await read(operatorKey, wallet.address, 'export.csv')).toMatchObject({
      status: 200,
      body: { address: wallet.address, entitled: true },
    });
    for (const credential of [
      await key(stranger, ['READ_ONLY']),
      await key(stranger, ['FULL']),
      stranger.token,
    ]) {
      const status = await http(a.url).get(`/subscriptions/status?address=${wallet.address}`, {
        token: credential,
      });
      const refused = await read(credential, wallet.address, 'export.csv');
      expect(refused).toMatchObject({ status: 403, body: { details: { code: 'address_forbidden' } } });
      expect([refused.status, refused.body]).toEqual([status.status, status.body]);
    }
  });

  it('grants the features of the plan an operator created while active, and none after cancel-now', async () => {
    const wallet = await login(a.url);
    const own = await key(wallet, ['READ_ONLY']);
    const renewed = await subscribe(wallet, 'pro');
    const until = renewed.body.currentPeriodEnd as string;
    expect((await read(own, wallet.address)).body).toEqual({
      address: wallet.address,
      plan: { id: 'pro', name: 'Pro' },
      features: FEATURES,
      until,
    });
    expect((await read(own, wallet.address, 'export.csv')).body).toEqual({
      address: wallet.address,
      feature: 'export.csv',
      entitled: true,
      plan: { id: 'pro', name: 'Pro' },
      until,
    });
    // A feature the plan does not list.
    expect((await read(own, wallet.address, 'sso')).body).toMatchObject({ entitled: false, until: null });

    const canceled = await api.post('/subscriptions/cancel', {
      token: wallet.token,
      body: { immediate: true },
    });
    expect(canceled.status).toBe(200);
    expect((await read(own, wallet.address, 'export.csv')).body).toMatchObject({
      entitled: false,
      plan: { id: 'pro' },
      until: null,
    });
    expect((await read(own, wallet.address)).body).toMatchObject({ features: [], until: null });
  });

  it('grants nothing once the period has run out', async () => {
    const wallet = await login(a.url);
    const own = await key(wallet, ['READ_ONLY']);
    await subscribe(wallet, 'brief');
    expect((await read(own, wallet.address, 'api.calls')).body.entitled).toBe(true);
    await sleep(SHORT * 1000 + 200);
    expect((await read(own, wallet.address, 'api.calls')).body).toMatchObject({
      entitled: false,
      until: null,
    });
  });

  it('honours on B, at its next read, a cancel-now and an expiry committed on A', async () => {
    const wallet = await login(a.url);
    const own = await key(wallet, ['READ_ONLY']);
    await subscribe(wallet, 'pro');
    // B reads (and caches) the subscription while it is in force.
    expect((await read(own, wallet.address, 'export.csv', b.url)).body.entitled).toBe(true);
    expect(
      (await api.post('/subscriptions/cancel', { token: wallet.token, body: { immediate: true } })).status,
    ).toBe(200);
    expect((await read(own, wallet.address, 'export.csv', b.url)).body).toMatchObject({
      entitled: false,
      until: null,
    });

    // Subscribed again on A to a plan that runs out: B, which cached the renewed row, stops granting at its end.
    await subscribe(wallet, 'brief');
    expect((await read(own, wallet.address, 'export.csv', b.url)).body.entitled).toBe(true);
    await sleep(SHORT * 1000 + 200);
    expect((await read(own, wallet.address, 'export.csv', b.url)).body.entitled).toBe(false);
  });

  it("honours on B, at its next read, an operator's change of the plan's features and name made on A", async () => {
    const plan = { ...PRO, id: 'changing', name: 'Changing' };
    expect((await api.post('/plans', { token: operator.token, body: plan })).status).toBe(200);
    const wallet = await login(a.url);
    const own = await key(wallet, ['READ_ONLY']);
    await subscribe(wallet, plan.id);
    // B reads (and caches) the plan with its features.
    expect((await read(own, wallet.address, 'export.csv', b.url)).body.entitled).toBe(true);
    const changed = await api.send('PATCH', `/plans/${plan.id}`, {
      token: operator.token,
      body: { name: 'Changed', features: ['api.calls'] },
    });
    expect(changed.status).toBe(200);
    expect((await read(own, wallet.address, 'export.csv', b.url)).body).toMatchObject({
      entitled: false,
      plan: { id: plan.id, name: 'Changed' },
    });
    const status = await http(b.url).get(`/subscriptions/status?address=${wallet.address}`, { token: own });
    expect(status.body).toMatchObject({ plan: { id: plan.id, name: 'Changed' }, features: ['api.calls'] });
  });

  it('refuses a malformed feature key with 400, never a 5xx', async () => {
    const wallet = await login(a.url);
    const own = await key(wallet, ['READ_ONLY']);
    const bad = ['', 'Export.csv', 'a b', 'a'.repeat(65), '%00', 'ä', 'a/b', 'x&feature=y'];
    for (const feature of bad) {
      const answer = await http(a.url).get(
        `/entitlements?address=${wallet.address}&feature=${encodeURIComponent(feature)}`,
        { token: own },
      );
      expect([feature, answer.status, answer.body?.details?.code]).toEqual([
        feature,
        400,
        'validation_failed',
      ]);
    }
    const twice = await http(a.url).get(`/entitlements?feature=a&feature=b`, { token: own });
    expect(twice).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect((await read(own, wallet.address, 'a'.repeat(64))).status).toBe(200);
  });
});
