import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { http } from './utils/http.js';
import { cli } from './utils/cli.js';
import { startTestApp, TEST_ORIGIN, type TestApp } from './utils/test-app.js';
import { login } from './utils/wallet.js';

/** `tollgate entitlements <address> [feature]` as an operator and as another wallet, a child process. */
describe('tollgate entitlements', () => {
  const operatorKey = generatePrivateKey();
  const runner = cli(() => t.url, 'entitlements-cli');
  let t: TestApp;

  const tollgate = runner.run;

  beforeAll(async () => {
    t = await startTestApp({ env: { OPERATOR_ADDRESSES: privateKeyToAccount(operatorKey).address } });
  });
  afterAll(() => t.close());

  it("prints one feature or the list of a customer's, and refuses another wallet's", async () => {
    const api = http(t.url);
    const operator = await login(t.url, privateKeyToAccount(operatorKey));
    const plan = {
      id: 'pro',
      name: 'Pro',
      periodSeconds: 3600,
      pricePerPeriod: '0',
      features: ['api.calls', 'sso'],
    };
    expect((await api.post('/plans', { token: operator.token, body: plan })).status).toBe(200);
    const customer = await login(t.url);
    const renewed = await api.post('/subscriptions/renew', { token: customer.token, body: { plan: 'pro' } });
    expect(renewed.status).toBe(200);
    const until = renewed.body.currentPeriodEnd as string;

    expect(
      (await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], { TOLLGATE_PRIVATE_KEY: operatorKey }))
        .code,
    ).toBe(0);
    expect(await tollgate(['entitlements', customer.address, 'sso'])).toMatchObject({
      code: 0,
      stdout: `sso  entitled  until ${until}  plan pro\n`,
    });
    expect(await tollgate(['entitlements', customer.address, 'export.csv'])).toMatchObject({
      code: 0,
      stdout: 'export.csv  not entitled  until -  plan pro\n',
    });
    expect(await tollgate(['entitlements', customer.address])).toMatchObject({
      code: 0,
      stdout: `${customer.address}  plan pro (Pro)  until ${until}\n  api.calls\n  sso\n`,
    });
    expect(await tollgate(['entitlements'])).toMatchObject({ code: 2 });

    expect(
      (
        await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], {
          TOLLGATE_PRIVATE_KEY: generatePrivateKey(),
        })
      ).code,
    ).toBe(0);
    const refused = await tollgate(['entitlements', customer.address, 'sso']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^refused: 403 address_forbidden: /);
  });
});
