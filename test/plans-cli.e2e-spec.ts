import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { cli } from './utils/cli.js';
import { startTestApp, TEST_ORIGIN, type TestApp } from './utils/test-app.js';

/** `tollgate plans list|create|archive` as an operator and as anyone else, a child process like a developer's. */
describe('tollgate plans', () => {
  const operatorKey = generatePrivateKey();
  const runner = cli(() => t.url, 'plans-cli');
  let t: TestApp;

  const tollgate = runner.run;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        OPERATOR_ADDRESSES: privateKeyToAccount(operatorKey).address,
        SUBSCRIPTION_PERIOD_SECONDS: '86400',
      },
    });
  });
  afterAll(() => t.close());

  it('lists, creates and archives plans; refuses a non-operator and bad numbers', async () => {
    expect(await tollgate(['plans', 'list'])).toMatchObject({
      code: 0,
      stdout: 'default  0/86400s  no trial  -  offered  Default\n',
    });
    expect(
      (await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], { TOLLGATE_PRIVATE_KEY: operatorKey }))
        .code,
    ).toBe(0);
    const created = await tollgate([
      'plans',
      'create',
      'pro',
      '--name',
      'Pro plan',
      '--period',
      '2592000',
      '--price',
      '123456789012345678901234567890',
      '--features',
      'api.calls,export.csv',
      '--trial',
      '604800',
    ]);
    expect(created).toMatchObject({
      code: 0,
      stdout:
        'pro  123456789012345678901234567890/2592000s  trial 604800s  api.calls,export.csv  offered  Pro plan\n',
    });
    expect((await tollgate(['plans', 'list'])).stdout.split('\n')).toHaveLength(3);
    expect(
      await tollgate(['plans', 'create', 'x', '--name', 'X', '--period', '1.5', '--price', '1']),
    ).toMatchObject({
      code: 2,
      stderr: '--period must be a whole number of seconds\n',
    });
    expect(await tollgate(['plans', 'create', 'x', '--name', 'X'])).toMatchObject({ code: 2 });
    expect((await tollgate(['plans', 'archive', 'pro'])).stdout).toContain('  archived  Pro plan');
    expect((await tollgate(['plans', 'list'])).stdout).not.toContain('pro  ');
    expect((await tollgate(['plans', 'list', '--archived'])).stdout).toContain('  archived  Pro plan');

    const other = await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], {
      TOLLGATE_PRIVATE_KEY: generatePrivateKey(),
    });
    expect(other.code).toBe(0);
    const refused = await tollgate(['plans', 'archive', 'default']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^refused: 403 operator_required: /);
  });

  it('changes plan: a dearer one at once, a cheaper one at the period end', async () => {
    const operatorLogin = await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], {
      TOLLGATE_PRIVATE_KEY: operatorKey,
    });
    expect(operatorLogin.code).toBe(0);
    for (const [id, price] of [
      ['lite', '5'],
      ['plus', '10'],
    ] as const) {
      const made = await tollgate([
        'plans',
        'create',
        id,
        '--name',
        id,
        '--period',
        '3600',
        '--price',
        price,
      ]);
      expect(made.code).toBe(0);
    }
    expect((await tollgate(['renew', '--plan', 'lite'])).code).toBe(0);
    const upgraded = await tollgate(['change-plan', 'plus']);
    expect(upgraded.code).toBe(0);
    expect(upgraded.stdout).toContain('plan:');
    expect(upgraded.stdout).toContain('"id":"plus"');
    const start = /currentPeriodStart: +(\S+)/.exec(upgraded.stdout)![1]!;
    const end = /currentPeriodEnd: +(\S+)/.exec(upgraded.stdout)![1]!;
    // About an hour of Lite left, worth about half an hour of Plus, in whole seconds.
    const seconds = (Date.parse(end) - Date.parse(start)) / 1000;
    expect(Number.isInteger(seconds)).toBe(true);
    expect(seconds).toBeGreaterThan(1700);
    expect(seconds).toBeLessThanOrEqual(1800);
    const scheduled = await tollgate(['change-plan', 'lite']);
    expect(scheduled.stdout).toMatch(/pendingPlan: +\{"id":"lite","name":"lite","effectiveAt":"[^"]+"\}/);
    expect(await tollgate(['change-plan'])).toMatchObject({ code: 2 });
    const unknown = await tollgate(['change-plan', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^refused: 404 plan_not_found: /);
  });
});
