import { PlanUsage } from '../src/plans/plan-usage.js';
import { http } from './utils/http.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

const PERIOD = 3600;
const PRO = {
  id: 'pro',
  name: 'Pro',
  description: 'Everything, and CSV export.',
  periodSeconds: 2_592_000,
  // Past 2^53: a JSON number would lose it.
  pricePerPeriod: '123456789012345678901234567890',
  features: ['api.calls', 'export.csv'],
  trialSeconds: 604_800,
};

describe('plans', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let operator: WalletSession;
  let customer: WalletSession;
  let api: ReturnType<typeof http>;

  const create = (body: unknown, token = operator.token) => api.post('/plans', { token, body });
  const patch = (id: string, body: unknown, token = operator.token) =>
    api.send('PATCH', `/plans/${id}`, { token, body });
  const archive = (id: string, token = operator.token) => api.post(`/plans/${id}/archive`, { token });
  const key = async (session: WalletSession, scopes: string[]): Promise<string> => {
    const created = await api.post('/api-keys', { token: session.token, body: { label: 'plans', scopes } });
    expect(created.status).toBe(200);
    return created.body.key as string;
  };

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        OPERATOR_ADDRESSES: operatorWallet.address,
        SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD),
        PLANS_MAX: '3',
        PLAN_FEATURES_MAX: '3',
      },
    });
    api = http(t.url);
    operator = await login(t.url, operatorWallet);
    customer = await login(t.url);
  });
  afterAll(() => t.close());

  it('lists only `default` while no plan was created: the settings, free of charge under `free`', async () => {
    const DEFAULT = {
      id: 'default',
      name: 'Default',
      description: '',
      periodSeconds: PERIOD,
      pricePerPeriod: '0',
      features: [],
      trialSeconds: null,
      offered: true,
      archivedAt: null,
      createdAt: null,
      updatedAt: null,
    };
    expect(await api.get('/plans')).toMatchObject({ status: 200, body: [DEFAULT] });
    expect(await api.get('/plans?archived=true')).toMatchObject({ status: 200, body: [DEFAULT] });
    expect(await api.get('/plans/default')).toMatchObject({ status: 200, body: DEFAULT });
  });

  it('lets an operator create a plan that anyone then reads, integer price intact', async () => {
    const created = await create(PRO);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      ...PRO,
      offered: true,
      archivedAt: null,
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
    });
    const listed = await api.get('/plans');
    expect(listed.body.map((plan: { id: string }) => plan.id)).toEqual(['default', 'pro']);
    expect(listed.body[1]).toEqual(created.body);
    expect((await api.get('/plans/pro')).body).toEqual(created.body);
    // Another id, with defaults for the optional fields.
    const basic = await create({ id: 'basic-1', name: 'Basic', periodSeconds: 60, pricePerPeriod: '0' });
    expect(basic.body).toMatchObject({ description: '', features: [], trialSeconds: null });
    expect((await archive('basic-1')).status).toBe(200);
  });

  it("refuses everyone but operators, and operators' keys without FULL", async () => {
    const body = { id: 'nope', name: 'Nope', periodSeconds: 60, pricePerPeriod: '1' };
    const refused = { status: 403, body: { details: { code: 'operator_required' } } };
    expect(await create(body, customer.token)).toMatchObject(refused);
    expect(await create(body, await key(customer, ['FULL']))).toMatchObject(refused);
    expect(await patch('pro', { name: 'Mine' }, customer.token)).toMatchObject(refused);
    expect(await archive('pro', customer.token)).toMatchObject(refused);
    expect(await create(body, await key(operator, ['SUBSCRIPTIONS_MANAGE']))).toMatchObject({
      status: 403,
      body: { details: { code: 'insufficient_scope' } },
    });
    expect(await api.post('/plans', { body })).toMatchObject({
      status: 401,
      body: { details: { code: 'missing_credentials' } },
    });
    expect((await api.get('/plans/nope')).status).toBe(404);
    // An operator's FULL key may.
    const viaKey = await create(body, await key(operator, ['FULL']));
    expect(viaKey.status).toBe(200);
    expect((await archive('nope')).status).toBe(200);
  });

  it.each([
    ['an id with capitals', { id: 'Pro2' }],
    ['an id of 33 characters', { id: 'a'.repeat(33) }],
    ['an id starting with a hyphen', { id: '-pro' }],
    ['an empty name', { name: '' }],
    ['a name with a control character', { name: 'Pro\u0007' }],
    ['a price as a JSON number', { pricePerPeriod: 5 }],
    ['a fractional price', { pricePerPeriod: '1.5' }],
    ['a negative price', { pricePerPeriod: '-1' }],
    ['a price with a leading zero', { pricePerPeriod: '05' }],
    ['a price over 2^256 - 1', { pricePerPeriod: (2n ** 256n).toString() }],
    ['a period of 0', { periodSeconds: 0 }],
    ['a fractional period', { periodSeconds: 1.5 }],
    ['a period past the integer column', { periodSeconds: 2 ** 31 }],
    ['a trial of 0', { trialSeconds: 0 }],
    ['a feature with capitals', { features: ['API.calls'] }],
    ['a feature with a comma', { features: ['a,b'] }],
    ['an empty feature', { features: [''] }],
    ['a feature of 65 characters', { features: ['a'.repeat(65)] }],
    ['a feature twice', { features: ['a', 'a'] }],
    ['features as a string', { features: 'a' }],
    ['an unknown field', { currency: 'usd' }],
  ])('refuses %s with 400 validation_failed', async (_what, change) => {
    const response = await create({ id: 'v', name: 'V', periodSeconds: 60, pricePerPeriod: '1', ...change });
    expect(response).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
  });

  it('refuses an id already taken, `default` and archived plans included', async () => {
    const again = { ...PRO, name: 'Pro again' };
    expect(await create(again)).toMatchObject({ status: 409, body: { details: { code: 'plan_exists' } } });
    expect(await create({ ...again, id: 'basic-1' })).toMatchObject({ status: 409 });
    expect(await create({ ...again, id: 'default' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_exists' } },
    });
  });

  it('holds PLAN_FEATURES_MAX on create and update', async () => {
    const features = ['a', 'b', 'c', 'd'];
    const refused = {
      status: 400,
      body: { details: { code: 'plan_limit_reached', setting: 'PLAN_FEATURES_MAX', limit: 3 } },
    };
    expect(
      await create({ id: 'many', name: 'Many', periodSeconds: 60, pricePerPeriod: '1', features }),
    ).toMatchObject(refused);
    expect(await patch('pro', { features })).toMatchObject(refused);
    expect((await api.get('/plans/pro')).body.features).toEqual(PRO.features);
  });

  it('changes name, description, features and trial; price and period while nobody is on the plan', async () => {
    const before = (await api.get('/plans/pro')).body;
    const changed = await patch('pro', {
      name: 'Pro+',
      description: '',
      features: ['api.calls'],
      trialSeconds: null,
      pricePerPeriod: '7',
      periodSeconds: 86_400,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      name: 'Pro+',
      description: '',
      features: ['api.calls'],
      trialSeconds: null,
      pricePerPeriod: '7',
      periodSeconds: 86_400,
      createdAt: before.createdAt,
    });
    expect(Date.parse(changed.body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    // An empty change leaves every field as it was.
    expect((await patch('pro', {})).body).toMatchObject({ name: 'Pro+', pricePerPeriod: '7' });
    expect(await patch('pro', { name: null })).toMatchObject({ status: 400 });
    expect(await patch('pro', { id: 'other' })).toMatchObject({ status: 400 });
    expect(await patch('unknown', { name: 'X' })).toMatchObject({
      status: 404,
      body: { details: { code: 'plan_not_found' } },
    });
    expect(await patch('default', { name: 'X' })).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_read_only' } },
    });
  });

  it('keeps the price and period of a plan in use (409 plan_in_use), other fields still change', async () => {
    const usage = t.app.get(PlanUsage);
    const asked: string[] = [];
    usage.register((_tx, planId) => {
      asked.push(planId);
      return Promise.resolve(planId === 'pro');
    });
    try {
      const inUse = { status: 409, body: { details: { code: 'plan_in_use' } } };
      expect(await patch('pro', { pricePerPeriod: '8' })).toMatchObject(inUse);
      expect(await patch('pro', { periodSeconds: 60, name: 'Renamed' })).toMatchObject(inUse);
      expect((await api.get('/plans/pro')).body).toMatchObject({
        name: 'Pro+',
        pricePerPeriod: '7',
        periodSeconds: 86_400,
      });
      // The same terms are not a change; the check is not even asked.
      asked.length = 0;
      const same = await patch('pro', { pricePerPeriod: '7', periodSeconds: 86_400, name: 'Renamed' });
      expect(same).toMatchObject({ status: 200, body: { name: 'Renamed' } });
      expect(asked).toEqual([]);
    } finally {
      usage.register(() => Promise.resolve(false));
    }
  });

  it('archives: no longer offered nor listed, still readable, once', async () => {
    const archived = await archive('pro');
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id: 'pro', offered: false, archivedAt: expect.any(String) });
    expect((await api.get('/plans')).body.map((plan: { id: string }) => plan.id)).toEqual(['default']);
    const all = await api.get('/plans?archived=true');
    expect(all.body.map((plan: { id: string }) => plan.id)).toEqual(['default', 'pro', 'basic-1', 'nope']);
    expect((await api.get('/plans/pro')).body).toEqual(archived.body);
    expect((await archive('pro')).body).toEqual(archived.body);
    // Features of an archived plan may still be edited: its subscribers keep it.
    expect((await patch('pro', { features: ['api.calls', 'support'] })).status).toBe(200);
    expect(await archive('unknown')).toMatchObject({
      status: 404,
      body: { details: { code: 'plan_not_found' } },
    });
    expect(await archive('default')).toMatchObject({
      status: 409,
      body: { details: { code: 'plan_read_only' } },
    });
    expect(await api.get('/plans?archived=yes')).toMatchObject({ status: 400 });
  });

  it('holds PLANS_MAX for offered plans, even when operators create at once', async () => {
    const attempts = await Promise.all(
      ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) =>
        create({ id, name: id, periodSeconds: 60, pricePerPeriod: '1' }),
      ),
    );
    expect(attempts.filter((response) => response.status === 200)).toHaveLength(3);
    const refused = attempts.filter((response) => response.status !== 200);
    expect(refused).toHaveLength(2);
    for (const response of refused) {
      expect(response).toMatchObject({
        status: 400,
        body: { details: { code: 'plan_limit_reached', setting: 'PLANS_MAX', limit: 3 } },
      });
    }
    // Archiving one frees its place.
    const offered = (await api.get('/plans')).body.map((plan: { id: string }) => plan.id).slice(1);
    expect(offered).toHaveLength(3);
    expect((await archive(offered[0])).status).toBe(200);
    expect((await create({ id: 'c6', name: 'c6', periodSeconds: 60, pricePerPeriod: '1' })).status).toBe(200);
  });

  it('answers 404 for an id no plan can have, without a 5xx', async () => {
    for (const id of ['UPPER', 'a'.repeat(60), '%00', 'x%20y']) {
      expect(await api.get(`/plans/${id}`)).toMatchObject({
        status: 404,
        body: { details: { code: 'plan_not_found' } },
      });
    }
  });
});
