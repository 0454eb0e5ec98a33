import {
  type Address,
  createPublicClient,
  erc20Abi,
  getAddress,
  http as viemHttp,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { cli, fields } from './utils/cli.js';
import { erc20PaymentEnv, startTestChain, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { ScriptedChargeExecutor } from './utils/scripted-charge-executor.js';
import { startTestApp, TEST_ORIGIN, type TestApp } from './utils/test-app.js';
import { CHARGER_ARTIFACT } from './utils/charger-chain.js';

/** `start` of period 0, as the service takes it: the period end in unix seconds, rounded down. */
const unixSeconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/**
 * `tollgate auto-renew enable|status|retry|disable` under `free`, a child process like a developer's, through a
 * failed charge and its retry (the charge executor is scripted to fail once; the renewal sweep is the service's).
 */
describe('tollgate auto-renew under free', () => {
  /** Periods of 20 s charged 10 s before their end: room for the CLI's start-up on a busy machine. */
  const PERIOD_SECONDS = 20;
  const LEAD_SECONDS = 10;
  /** A few sweep rounds (5 s apart) and a period, with room for a busy machine. */
  const WAIT = 90_000;
  const privateKey = generatePrivateKey();
  const runner = cli(() => t.url, 'auto-renew-free');
  const tollgate = runner.run;
  const executor = new ScriptedChargeExecutor();
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
        AUTO_RENEW_LEAD_SECONDS: String(LEAD_SECONDS),
        AUTO_RENEW_RETRY_SECONDS: '3600',
        SUBSCRIPTION_GRACE_HOURS: '1',
      },
      chargeExecutor: executor,
    });
    const login = await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], {
      TOLLGATE_PRIVATE_KEY: privateKey,
    });
    expect(login.code).toBe(0);
    token = (await tollgate(['token'])).stdout.trim();
  });
  afterAll(() => t.close());

  /** The subscription as the API shows it, with the session the CLI stored. */
  const subscription = async (): Promise<Record<string, any>> => {
    const answer = await http(t.url).get('/subscriptions/status', { token });
    expect(answer.status).toBe(200);
    return answer.body as Record<string, any>;
  };

  it('shows it off, and refuses to enable it without a subscription in force', async () => {
    const status = await tollgate(['auto-renew', 'status']);
    expect(status.code).toBe(0);
    expect(fields(status.stdout)).toEqual({
      status: 'none',
      enabled: 'false',
      nextChargeAt: '-',
      amount: '-',
      token: '-',
      endsAt: '-',
      allowanceShortfall: '0',
      mandateHash: '-',
      failure: 'none',
    });

    const refused = await tollgate(['auto-renew', 'enable']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^refused: 409 subscription_not_active: /);
  });

  it('enables it, shows a failed charge as past_due with its reason, retries it, and disables it', async () => {
    executor.next({
      kind: 'failed',
      failure: 'insufficient_balance',
      detail: 'The balance is 1 USDC and the period costs 5 USDC: top the wallet up.',
      retryable: true,
    });
    const renewed = await tollgate(['renew']);
    expect(renewed.code).toBe(0);
    const end = fields(renewed.stdout).currentPeriodEnd!;

    const enabled = await tollgate(['auto-renew', 'enable', '--periods', '5']);
    expect(enabled.code).toBe(0);
    expect(fields(enabled.stdout)).toEqual({
      status: 'active',
      enabled: 'true',
      nextChargeAt: new Date(Date.parse(end) - LEAD_SECONDS * 1000).toISOString(),
      amount: '0',
      token: '-',
      endsAt: new Date((unixSeconds(end) + 5 * PERIOD_SECONDS) * 1000).toISOString(),
      allowanceShortfall: '0',
      mandateHash: '-',
      failure: 'none',
    });
    // The charge may have been tried (and failed) by now: what the failure leaves alone.
    const { enabled: on, amount, endsAt } = fields(enabled.stdout);
    expect(fields((await tollgate(['auto-renew', 'status'])).stdout)).toMatchObject({
      enabled: on,
      amount,
      endsAt,
    });

    await until(async () => (await subscription()).status === 'past_due', WAIT, 'the failed charge');
    const pastDue = fields((await tollgate(['auto-renew', 'status'])).stdout);
    expect(pastDue).toMatchObject({ status: 'past_due', enabled: 'true' });
    expect(pastDue.failure).toMatch(
      /^insufficient_balance at \d{4}-.+Z: The balance is 1 USDC and the period costs 5 USDC: top the wallet up\.$/,
    );
    // Retried per AUTO_RENEW_RETRY_SECONDS (an hour) unless asked now.
    expect(Date.parse(pastDue.nextChargeAt!)).toBeGreaterThan(Date.now() + 3_000_000);

    const retried = await tollgate(['auto-renew', 'retry']);
    expect(retried.code).toBe(0);
    expect(Date.parse(fields(retried.stdout).nextChargeAt!)).toBeLessThanOrEqual(Date.now());
    await until(async () => (await subscription()).autoRenew.failure === null, WAIT, 'the retried charge');
    const recovered = fields((await tollgate(['auto-renew', 'status'])).stdout);
    expect(recovered).toMatchObject({ status: 'active', enabled: 'true', failure: 'none' });
    const events = await tollgate([
      'events',
      '--events',
      'subscription.payment_failed,subscription.recovered',
    ]);
    expect(
      events.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('  ')[1]),
    ).toEqual(['subscription.recovered', 'subscription.payment_failed']);

    const nothing = await tollgate(['auto-renew', 'retry']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/^refused: 409 auto_renew_nothing_to_retry: /);

    const disabled = await tollgate(['auto-renew', 'disable']);
    expect(disabled.code).toBe(0);
    expect(fields(disabled.stdout)).toMatchObject({ status: 'active', enabled: 'false' });
    const again = await tollgate(['auto-renew', 'disable']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^refused: 404 auto_renew_not_enabled: /);
  });

  it('refuses a number of periods the service would refuse, before asking it', async () => {
    for (const periods of ['0', '1201', '2.5', 'twelve']) {
      const run = await tollgate(['auto-renew', 'enable', '--periods', periods]);
      expect(run).toMatchObject({ code: 2, stderr: '--periods must be a whole number from 1 to 1200\n' });
    }
    const unknown = await tollgate(['auto-renew', 'pause']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^auto-renew enable\|status\|retry\|disable\n/);
  });
});

/**
 * `tollgate auto-renew enable` under `erc20` on the in-process chain: the mandate signed from the private key and
 * checked by the service, the charging contract approved from the same key when its allowance is short.
 */
describe('tollgate auto-renew under erc20', () => {
  /** 5 tokens of 6 decimals. */
  const PRICE = 5_000_000n;
  /** A day: no charge is due while the test runs. */
  const PERIOD_SECONDS = 86_400;
  const LEAD_SECONDS = 300;
  const receiver = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const privateKey = generatePrivateKey();
  const payer = privateKeyToAccount(privateKey).address;
  const runner = cli(() => t.url, 'auto-renew-erc20');
  const tollgate = runner.run;
  let chain: TestChain;
  let token: TestToken;
  let contract: Address;
  let client: PublicClient;
  let t: TestApp;

  beforeAll(async () => {
    chain = await startTestChain();
    // A token whose approve changes a nonzero allowance only from 0, as USDT's does.
    token = await chain.deployToken('Test USD', 'TUSD', 6, { resetFirst: true });
    contract = await chain.deployContract(CHARGER_ARTIFACT);
    const keeperKey = generatePrivateKey();
    await chain.fund(privateKeyToAccount(keeperKey).address);
    client = createPublicClient({ transport: viemHttp(chain.rpcUrl), cacheTime: 0 });
    t = await startTestApp({
      env: {
        ...erc20PaymentEnv(chain, token, receiver, PRICE),
        SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
        AUTO_RENEW_LEAD_SECONDS: String(LEAD_SECONDS),
        AUTO_RENEW_CHARGER_ADDRESS: contract,
        KEEPER_PRIVATE_KEY: keeperKey,
      },
    });
    // The payer holds tokens and ether for the approve's gas, and paid its first period by transfer.
    await chain.fund(payer);
    await token.mint(payer, 10n * PRICE);
    const login = await tollgate(['login', '--origin', TEST_ORIGIN.AUTH_URI], {
      TOLLGATE_PRIVATE_KEY: privateKey,
    });
    expect(login.code).toBe(0);
    const paid = await token.transfer(payer, receiver, PRICE);
    const renewed = await tollgate(['renew', '--tx-hash', paid]);
    expect(renewed.code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
    await chain?.stop();
  });

  const allowance = () =>
    client.readContract({
      address: token.address,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [payer, contract],
    });

  /** The approves the payer sent, as the token logged them. */
  const approvals = async () =>
    (
      await client.getContractEvents({
        address: token.address,
        abi: erc20Abi,
        eventName: 'Approval',
        fromBlock: 'earliest',
        toBlock: 'latest',
      })
    ).filter((log) => log.args.owner === payer);

  it("needs a reachable RPC URL and the subscription wallet's key, and sends nothing without them", async () => {
    const noRpc = await tollgate(['auto-renew', 'enable'], { TOLLGATE_PRIVATE_KEY: privateKey });
    expect(noRpc.code).toBe(2);
    expect(noRpc.stderr).toMatch(/pass --rpc-url <url> or set TOLLGATE_RPC_URL/);

    const down = await tollgate(['auto-renew', 'enable', '--rpc-url', 'http://127.0.0.1:9'], {
      TOLLGATE_PRIVATE_KEY: privateKey,
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^chain: reading the chain id failed at http:\/\/127\.0\.0\.1:9: /);

    const otherKey = generatePrivateKey();
    const wrongKey = await tollgate(['auto-renew', 'enable', '--rpc-url', chain.rpcUrl], {
      TOLLGATE_PRIVATE_KEY: otherKey,
    });
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toBe(
      `the key is ${privateKeyToAccount(otherKey).address}'s; the mandate is the subscription's wallet's ` +
        `(${payer}) to sign\n`,
    );
    expect(await approvals()).toEqual([]);
    expect(fields((await tollgate(['auto-renew', 'status'])).stdout).enabled).toBe('false');
  });

  it('enable --periods 3 approves the charging contract for three periods, then registers the signed mandate', async () => {
    const end = fields((await tollgate(['status'])).stdout).currentPeriodEnd!;
    const enabled = await tollgate(['auto-renew', 'enable', '--periods', '3'], {
      TOLLGATE_PRIVATE_KEY: privateKey,
      TOLLGATE_RPC_URL: chain.rpcUrl,
    });
    expect(enabled.code).toBe(0);
    expect(enabled.stderr).toContain(
      `approving ${getAddress(contract)} for ${3n * PRICE} of ${getAddress(token.address)}`,
    );
    expect(enabled.stderr).toMatch(/approve sent: 0x[0-9a-f]{64}; waiting for its receipt\n/);
    const shown = fields(enabled.stdout);
    expect(shown).toMatchObject({
      status: 'active',
      enabled: 'true',
      amount: PRICE.toString(),
      token: getAddress(token.address),
      allowanceShortfall: '0',
      failure: 'none',
    });

    // On chain: one approve, from the payer's own key, of three periods' amount.
    expect(await allowance()).toBe(3n * PRICE);
    const [approval, ...more] = await approvals();
    expect(more).toEqual([]);
    expect(approval!.args).toEqual({ owner: payer, spender: getAddress(contract), value: 3n * PRICE });
    const sent = await client.getTransaction({ hash: approval!.transactionHash });
    expect(getAddress(sent.from)).toBe(payer);

    // The service checked the mandate (signature, terms, start) and shows it: three periods from the period end.
    expect(shown).toMatchObject({
      nextChargeAt: new Date(Date.parse(end) - LEAD_SECONDS * 1000).toISOString(),
      endsAt: new Date((unixSeconds(end) + 3 * PERIOD_SECONDS) * 1000).toISOString(),
    });
    expect(fields((await tollgate(['auto-renew', 'status'])).stdout)).toEqual(shown);
  });

  it('approves nothing when the allowance already covers the mandate, and replaces the registration', async () => {
    const again = await tollgate(['auto-renew', 'enable', '--periods', '2'], {
      TOLLGATE_PRIVATE_KEY: privateKey,
      TOLLGATE_RPC_URL: chain.rpcUrl,
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(
      `allowance of ${getAddress(contract)} is ${3n * PRICE}: covers ${2n * PRICE}, nothing to approve`,
    );
    expect(await approvals()).toHaveLength(1);
    const end = fields((await tollgate(['status'])).stdout).currentPeriodEnd!;
    expect(fields((await tollgate(['auto-renew', 'status'])).stdout)).toMatchObject({
      enabled: 'true',
      endsAt: new Date((unixSeconds(end) + 2 * PERIOD_SECONDS) * 1000).toISOString(),
      allowanceShortfall: '0',
    });

    const disabled = await tollgate(['auto-renew', 'disable']);
    expect(fields(disabled.stdout)).toMatchObject({ enabled: 'false' });
  });

  it('sets a short allowance to 0 first where the token wants it (USDT), then approves the periods', async () => {
    const enabled = await tollgate(['auto-renew', 'enable', '--periods', '5'], {
      TOLLGATE_PRIVATE_KEY: privateKey,
      TOLLGATE_RPC_URL: chain.rpcUrl,
    });
    expect(enabled.code).toBe(0);
    expect(enabled.stderr).toContain(
      `${getAddress(token.address)} changes an allowance only from 0: setting ${getAddress(contract)}'s ` +
        `allowance of ${3n * PRICE} to 0 first`,
    );
    // The first case's approve, then the reset and the new allowance, all from the payer.
    expect((await approvals()).map((log) => log.args.value)).toEqual([3n * PRICE, 0n, 5n * PRICE]);
    expect(await allowance()).toBe(5n * PRICE);
    expect(fields(enabled.stdout)).toMatchObject({ enabled: 'true', allowanceShortfall: '0' });
  });

  it("disable --revoke revokes the mandate on chain from the payer's key, then turns it off", async () => {
    const { mandateHash } = fields((await tollgate(['auto-renew', 'status'])).stdout);
    expect(mandateHash).toMatch(/^0x[0-9a-f]{64}$/);
    const revoked = () =>
      client.readContract({
        address: contract,
        abi: CHARGER_ARTIFACT.abi,
        functionName: 'revoked',
        args: [payer, mandateHash],
      });

    // Without a chain, or with another wallet's key, nothing is sent and it stays on.
    const noRpc = await tollgate(['auto-renew', 'disable', '--revoke'], { TOLLGATE_PRIVATE_KEY: privateKey });
    expect(noRpc.code).toBe(2);
    expect(noRpc.stderr).toMatch(/pass --rpc-url <url> or set TOLLGATE_RPC_URL/);
    const otherKey = generatePrivateKey();
    const wrongKey = await tollgate(['auto-renew', 'disable', '--revoke', '--rpc-url', chain.rpcUrl], {
      TOLLGATE_PRIVATE_KEY: otherKey,
    });
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toBe(
      `the key is ${privateKeyToAccount(otherKey).address}'s; only the mandate's payer (${payer}) can revoke it\n`,
    );
    expect(fields((await tollgate(['auto-renew', 'status'])).stdout).enabled).toBe('true');
    expect(await revoked()).toBe(false);

    const disabled = await tollgate(['auto-renew', 'disable', '--revoke'], {
      TOLLGATE_PRIVATE_KEY: privateKey,
      TOLLGATE_RPC_URL: chain.rpcUrl,
    });
    expect(disabled.code).toBe(0);
    expect(disabled.stderr).toContain(
      `revoking the mandate ${mandateHash} at the charging contract ${getAddress(contract)} from ${payer}`,
    );
    expect(disabled.stderr).toMatch(/revoke sent: 0x[0-9a-f]{64}; waiting for its receipt\n/);
    expect(fields(disabled.stdout)).toMatchObject({ enabled: 'false', mandateHash: '-' });
    expect(await revoked()).toBe(true);
  });
});
