import pino from 'pino';
import { type Address, getAddress, type Hex, keccak256, type PublicClient, toHex } from 'viem';
import { Metrics } from '../src/metrics/metrics.service.js';
import { startMetricsServer, type MetricsServer } from '../src/metrics/metrics-server.js';
import {
  eventsOf,
  fundedPayer,
  renewedWithMandate,
  startChargerChain,
  statusOf,
  subscribedWithMandate,
  transfersFrom,
} from './utils/charger-chain.js';
import { erc20PaymentEnv, type TestChain, type TestToken } from './utils/evm.js';
import { until } from './utils/receiver.js';
import { type RpcProxy, startRpcProxy } from './utils/rpc-proxy.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { newWallet, type WalletSession } from './utils/wallet.js';

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
  let keeperKey: Hex;
  let proxy: RpcProxy;
  let client: PublicClient;
  let app: TestApp;
  let metricsServer: MetricsServer;

  beforeAll(async () => {
    ({ chain, token, charger, keeperKey, client } = await startChargerChain());
    proxy = await startRpcProxy(chain.rpcUrl);
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
        // One charge at a time: a second mandate due waits its turn behind the first's confirmations (the backlog).
        AUTO_RENEW_CONCURRENCY: '1',
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

  const events = (session: WalletSession, type: string) => eventsOf(app.url, session, type);
  const status = (session: WalletSession) => statusOf(app.url, session);

  const transfers = (payer: Address) => transfersFrom(client, token.address, payer);

  /** A wallet that paid its first period by hand and registered a mandate of one period, with the allowance. */
  const subscribed = () =>
    subscribedWithMandate(
      app.url,
      { token, charger },
      { receiver, price: PRICE, periods: 1n, salt: nextSalt() },
    );

  /**
   * One transfer per credit and one credit per transfer: the payer's transfers (the manual payment, then the
   * keeper's charge) are the payments of its `subscription.renewed` events, in order, and the charge paid the period
   * after `end`. Nothing failed on the subscriber's side, and the period ending at `end` never lapsed.
   */
  const expectChargedOnceAfter = async (session: WalletSession, end: string) => {
    const logs = await transfers(session.address);
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
      const { session, end } = await subscribed();
      // The charge is mined in a block of its own; its second confirmation waits for the next block.
      await until(
        async () => (await transfers(session.address)).length === 2,
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
      const { session, end } = await subscribed();
      proxy.fault('refuse');
      await until(() => Promise.resolve(Date.now() > Date.parse(end) + 2000), WAIT, 'the period end');
      const held = await status(session);
      expect(held).toMatchObject({ active: true, status: 'past_due', currentPeriodEnd: end });
      expect(await events(session, 'subscription.payment_failed')).toEqual([]);
      expect(await transfers(session.address)).toHaveLength(1);

      proxy.fault('none');
      await until(
        async () => (await transfers(session.address)).length === 2,
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

  it(
    'a mandate due behind another charge still waiting for its confirmations: held over its end, then charged once',
    async () => {
      // Their periods end a moment apart (the second paid before the first renews, so that no block of its comes to
      // confirm the first charge); the keeper waits for the first charge's second confirmation (30 s) before the
      // second's turn, and the second's end passes meanwhile.
      const paid = await fundedPayer(app.url, { token, charger }, { receiver, price: PRICE });
      const first = await subscribed();
      const second = await renewedWithMandate(app.url, paid, { periods: 1n, salt: nextSalt() });
      await until(() => Promise.resolve(Date.now() > Date.parse(second.end) + 2000), WAIT, 'the period end');
      expect(await transfers(second.session.address)).toHaveLength(1);
      const held = await status(second.session);
      expect(held).toMatchObject({ active: true, status: 'past_due', currentPeriodEnd: second.end });
      expect(held.autoRenew.failure).toBeNull();

      // Each charge confirms once a block follows it.
      await until(
        async () => {
          await chain.mine(1);
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const renewed = await Promise.all(
            [first, second].map(
              async ({ session }) => (await events(session, 'subscription.renewed')).length,
            ),
          );
          return renewed.every((count) => count === 2);
        },
        WAIT,
        'both charges credited',
      );
      await expectChargedOnceAfter(first.session, first.end);
      await expectChargedOnceAfter(second.session, second.end);
    },
    TEST_TIMEOUT,
  );
});
