import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { http } from './utils/http.js';
import { startTestApp, TEST_ORIGIN, type TestApp } from './utils/test-app.js';
import { login } from './utils/wallet.js';

const CLI = resolve('sdk/dist/esm/cli/main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `tollgate entitlements <address> [feature]` as an operator and as another wallet, a child process. */
describe('tollgate entitlements', () => {
  const operatorKey = generatePrivateKey();
  const home = mkdtempSync(join(tmpdir(), 'tollgate-entitlements-cli-'));
  let t: TestApp;

  function tollgate(args: string[], extra: Record<string, string> = {}): Promise<Run> {
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: home, TOLLGATE_URL: t.url, ...extra };
    for (const name of ['TOLLGATE_API_KEY', 'TOLLGATE_PRIVATE_KEY']) if (!(name in extra)) delete env[name];
    const child = spawn(process.execPath, [CLI, ...args], { cwd: home, env });
    const run: Run = { code: null, stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
    return new Promise((done) => child.on('close', (code) => done({ ...run, code })));
  }

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
