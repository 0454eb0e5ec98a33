import { readFileSync } from 'node:fs';
import pino from 'pino';
import {
  type Abi,
  type Address,
  createPublicClient,
  erc20Abi,
  getAddress,
  type Hex,
  http as viemHttp,
  keccak256,
  type PublicClient,
  toHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Mandate, mandateTypedData } from '../src/auto-renew/mandate.js';
import { Metrics } from '../src/metrics/metrics.service.js';
import { startMetricsServer, type MetricsServer } from '../src/metrics/metrics-server.js';
import { erc20PaymentEnv, startTestChain, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { type RpcProxy, startRpcProxy } from './utils/rpc-proxy.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

const artifact = JSON.parse(readFileSync(new URL('../contracts/compiled.json', import.meta.url), 'utf8')) as {
  TollgateCharger: { abi: Abi; bytecode: Hex };
};

/** 5 tokens of 6 decimals. */
const PRICE = 5_000_000n;
/**
 * Periods of 40 s whose charge is due 16 s before their end: the registration fits in the 24 s before the window
 * opens (with the chain then taken away), and the period end passes while the charge waits.
 */
const PERIOD_SECONDS = 40;
const LEAD_SECONDS = 16;
const WAIT = 200_000;
const TEST_TIMEOUT = 400_000;

interface ListedEvent {
  type: string;
  data: Record<string, any>;
}

let saltCounter = 0;
const nextSalt = (): Hex => keccak256(toHex(`auto-renew-chain-waits-${saltCounter++}`));

/**
 * A charge that waits for the chain over its period end, on the in-process chain behind a JSON-RPC proxy, with two
 * confirmations (the test mines the second block when it chooses): the subscription stays in force, and the transfer
 * is credited once, for the period after the old end; reconciled against the token's Transfer logs.
 */
describe('automatic renewal under erc20 while the charge waits for the chain', () => {
  const receiver = getAddress(newWallet().address);
  let chain: TestChain;
  let token: TestToken;
  let charger: Address;
  let proxy: RpcProxy;
  let client: PublicClient;
  let app: TestApp;
  let metricsServer: MetricsServer;

  beforeAll(async () => {
    chain = await startTestChain();
    token = await chain.deployToken('Test USD', 'TUSD', 6);
    charger = await chain.deployContract(artifact.TollgateCharger);
    const keeperKey = generatePrivateKey();
    await chain.fund(privateKeyToAccount(keeperKey).address);
    // Each period the service asks for has begun on the chain (see auto-renew-erc20.e2e-spec.ts).
    await chain.increaseTime(86_400);
    proxy = await startRpcProxy(chain.rpcUrl);
    client = createPublicClient({ transport: viemHttp(chain.rpcUrl), cacheTime: 0 });
    app = await startTestApp({
      env: {
        ...erc20PaymentEnv(chain, token, receiver, PRICE),
        CHAIN_RPC_URL: proxy.url,
        // A refused connection is told at once; a short timeout keeps a round of the sweep short.
        CHAIN_RPC_TIMEOUT_MS: '5000',
        PAYMENT_CONFIRMATIONS: '2',
        SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
        AUTO_RENEW_LEAD_SECONDS: String(LEAD_SECONDS),
        AUTO_RENEW_RETRY_SECONDS: '3600',
        AUTO_RENEW_CHARGER_ADDRESS: charger,
        KEEPER_PRIVATE_KEY: keeperKey,
      },
    });
    metricsServer = await startMetricsServer(
      app.app.get(Metrics).registry,
      '127.0.0.1',
      0,
      pino({ level: 'silent' }),
    );
  });
  afterAll(async () => {
    await metricsServer?.close();
    await app?.close();
    await proxy?.close();
    await chain?.stop();
  });
  beforeEach(() => proxy.fault('none'));

  const api = () => http(app.url);

  const events = async (session: WalletSession, type: string): Promise<ListedEvent[]> => {
    const listed = await api().get(`/events?type=${type}&limit=200`, { token: session.token });
    expect(listed.status).toBe(200);
    return (listed.body as ListedEvent[]).reverse();
  };

  const status = async (session: WalletSession): Promise<Record<string, any>> => {
    const answer = await api().get('/subscriptions/status', { token: session.token });
    expect(answer.status).toBe(200);
    return answer.body as Record<string, any>;
  };

  const transfersFrom = async (payer: Address) =>
    (
      await client.getContractEvents({
        address: token.address,
        abi: erc20Abi,
        eventName: 'Transfer',
        fromBlock: 'earliest',
        toBlock: 'latest',
      })
    ).filter((log) => log.args.from === payer);

  /** A wallet that paid its first period by hand and registered a mandate of one period, with the allowance. */
  const subscribedWithMandate = async (): Promise<{ session: WalletSession; end: string }> => {
    const session = await login(app.url);
    await token.mint(session.address, 10n * PRICE);
    const firstTx = await token.transfer(session.address, receiver, PRICE);
    await token.approve(session.address, charger, 10n * PRICE);
    const renewed = await api().post('/subscriptions/renew', {
      token: session.token,
      body: { payment: { txHash: firstTx } },
    });
    expect(renewed.status).toBe(200);
    const end = renewed.body.currentPeriodEnd as string;
    const plan = (await api().get('/subscriptions/plan')).body.autoRenew as Record<string, any>;
    const mandate: Mandate = {
      payer: session.address,
      token: getAddress(plan.token as string),
      payee: getAddress(plan.payee as string),
      amount: BigInt(plan.amount as string),
      periodSeconds: BigInt(plan.periodSeconds as number),
      start: BigInt(Math.floor(Date.parse(end) / 1000)),
      periods: 1n,
      salt: nextSalt(),
    };
    const signature = await session.account.signTypedData(
      mandateTypedData(mandate, plan.chainId as number, getAddress(plan.charger as string)),
    );
    const registered = await api().post('/subscriptions/auto-renew', {
      token: session.token,
      body: {
        mandate: {
          ...mandate,
          amount: mandate.amount.toString(),
          periodSeconds: mandate.periodSeconds.toString(),
          start: mandate.start.toString(),
          periods: mandate.periods.toString(),
        },
        signature,
      },
    });
    expect(registered.status).toBe(200);
    return { session, end };
  };

  /**
   * One transfer per credit and one credit per transfer: the payer's transfers (the manual payment, then the
   * keeper's charge) are the payments of its `subscription.renewed` events, in order, and the charge paid the period
   * after `end`. Nothing failed on the subscriber's side, and the period ending at `end` never lapsed.
   */
  const expectChargedOnceAfter = async (session: WalletSession, end: string) => {
    const logs = await transfersFrom(session.address);
    expect(logs.map((log) => log.args)).toEqual(
      [0, 1].map(() => ({ from: session.address, to: receiver, value: PRICE })),
    );
    const renewals = await events(session, 'subscription.renewed');
    expect(renewals.map((event) => event.data.payment.txHash)).toEqual(
      logs.map((log) => log.transactionHash.toLowerCase()),
    );
    expect(renewals.map((event) => event.data.payment.logIndex)).toEqual(logs.map((log) => log.logIndex));
    expect(renewals[1]!.data).toMatchObject({
      previousPeriodEnd: end,
      currentPeriodEnd: new Date(Date.parse(end) + PERIOD_SECONDS * 1000).toISOString(),
    });
    expect(await events(session, 'subscription.payment_failed')).toEqual([]);
    expect(await events(session, 'subscription.recovered')).toEqual([]);
    const expired = await events(session, 'subscription.expired');
    expect(expired.filter((event) => event.data.currentPeriodEnd === end)).toEqual([]);
  };

  it(
    'a charge mined before its period end and confirmed after it: in force meanwhile, credited once from the old end',
    async () => {
      const { session, end } = await subscribedWithMandate();
      // The charge is mined in a block of its own; its second confirmation waits for the next block.
      await until(
        async () => (await transfersFrom(session.address)).length === 2,
        WAIT,
        'the keeper to send the charge',
      );
      await until(() => Promise.resolve(Date.now() > Date.parse(end) + 2000), WAIT, 'the period end');
      const held = await status(session);
      expect(held).toMatchObject({ active: true, status: 'past_due', currentPeriodEnd: end });
      expect(held.autoRenew.failure).toBeNull();
      expect(await events(session, 'subscription.renewed')).toHaveLength(1);

      await chain.mine(1);
      await until(
        async () => (await events(session, 'subscription.renewed')).length === 2,
        WAIT,
        'the credit of the confirmed charge',
      );
      await expectChargedOnceAfter(session, end);
    },
    TEST_TIMEOUT,
  );

  it(
    'the chain down over the charge window and the period end: no payment_failed, then one charge and one credit',
    async () => {
      const { session, end } = await subscribedWithMandate();
      proxy.fault('refuse');
      await until(() => Promise.resolve(Date.now() > Date.parse(end) + 2000), WAIT, 'the period end');
      const held = await status(session);
      expect(held).toMatchObject({ active: true, status: 'past_due', currentPeriodEnd: end });
      expect(await events(session, 'subscription.payment_failed')).toEqual([]);
      expect(await transfersFrom(session.address)).toHaveLength(1);

      proxy.fault('none');
      await until(
        async () => (await transfersFrom(session.address)).length === 2,
        WAIT,
        'the charge once the chain is back',
      );
      await chain.mine(1);
      await until(
        async () => (await events(session, 'subscription.renewed')).length === 2,
        WAIT,
        'the credit',
      );
      await expectChargedOnceAfter(session, end);

      // The outage was counted by outcome, and the renewal sweep's backlog gauge is served.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`)).text();
      expect(metrics).toMatch(/^tollgate_keeper_charges_total\{outcome="chain_unavailable"\} [1-9]/m);
      expect(metrics).toMatch(/^tollgate_auto_renew_oldest_due_seconds \d+$/m);
    },
    TEST_TIMEOUT,
  );
});
