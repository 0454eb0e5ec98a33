import pg from 'pg';
import { type Address, getAddress, type Hex, keccak256, type PublicClient, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startChargerChain, subscribedWithMandate, transfersFrom } from './utils/charger-chain.js';
import { erc20PaymentEnv, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { type RpcProxy, startRpcProxy } from './utils/rpc-proxy.js';
import { type BuiltProcess, startWorkerProcess } from './utils/service-process.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { newWallet } from './utils/wallet.js';

const PRICE = 5_000_000n;
/** Long enough for a worker process to boot on a busy machine before the period ends. */
const PERIOD_SECONDS = 60;
const LEAD_SECONDS = 30;
const WAIT = 200_000;
const TEST_TIMEOUT = 400_000;

/**
 * The keeper as it runs: the renewal sweep in a worker process (`dist/src/worker.js`, built by `npm test`'s pretest),
 * killed with SIGKILL after it broadcast a charge and before it read the receipt, then another worker started. The
 * API is this process's app (its own workers off), on the same database; the chain is the in-process EVM, the
 * workers reach it through a JSON-RPC proxy that drops them right after the send.
 */
describe('automatic renewal under erc20 with the keeper killed between sending and the receipt', () => {
  const receiver = getAddress(newWallet().address);
  let chain: TestChain;
  let token: TestToken;
  let charger: Address;
  let proxy: RpcProxy;
  let client: PublicClient;
  let app: TestApp;
  let pool: pg.Pool;
  let workerEnv: Record<string, string>;
  const workers: BuiltProcess[] = [];

  beforeAll(async () => {
    const started = await startChargerChain();
    ({ chain, token, charger, client } = started);
    const keeperKey = started.keeperKey;
    proxy = await startRpcProxy(chain.rpcUrl);
    const env = {
      ...erc20PaymentEnv(chain, token, receiver, PRICE),
      SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
      AUTO_RENEW_LEAD_SECONDS: String(LEAD_SECONDS),
      AUTO_RENEW_RETRY_SECONDS: '3600',
      AUTO_RENEW_CHARGER_ADDRESS: charger,
      KEEPER_PRIVATE_KEY: keeperKey,
    };
    app = await startTestApp({ env: { ...env, WEBHOOK_WORKERS: 'false' } });
    pool = new pg.Pool({ connectionString: app.databaseUrl, max: 2 });
    workerEnv = { ...env, CHAIN_RPC_URL: proxy.url, CHAIN_RPC_TIMEOUT_MS: '5000' };
  });
  afterAll(async () => {
    for (const worker of workers) await worker.kill('SIGKILL');
    await pool?.end();
    await app?.close();
    await proxy?.close();
    await chain?.stop();
  });

  const startWorker = async (): Promise<BuiltProcess> => {
    const worker = await startWorkerProcess(app.databaseUrl, workerEnv);
    workers.push(worker);
    return worker;
  };

  it(
    'credits the period exactly once after a restart, from the transaction the killed keeper recorded',
    async () => {
      // The first keeper's endpoint passes its charge on, then refuses everything: it never reads a receipt.
      proxy.refuseAfterNextSend();
      const first = await startWorker();

      const { session, end } = await subscribedWithMandate(
        app.url,
        { token, charger },
        { receiver, price: PRICE, periods: 1n, salt: keccak256(toHex(`keeper-restart-${Date.now()}`)) },
      );

      const transfers = () => transfersFrom(client, token.address, session.address);

      // The charge is on chain, recorded as sent and never confirmed; the sweep let go of the mandate (a kill
      // while it held it would only make the next worker wait out the lease).
      await until(async () => (await transfers()).length === 2, WAIT, 'the first keeper to send');
      await until(
        async () => {
          const { rows } = await pool.query<{ state: string; released: boolean }>(
            `SELECT c.state, m.lease_until IS NULL AS released
             FROM auto_renew_mandates m JOIN keeper_charges c ON c.mandate_hash = m.mandate_hash
             WHERE m.address = $1 AND m.status = 'enabled'`,
            [session.address.toLowerCase()],
          );
          return rows.length === 1 && rows[0]!.state === 'sent' && rows[0]!.released;
        },
        WAIT,
        'the charge recorded as sent',
      );
      expect(await first.kill('SIGKILL')).toBeNull();
      expect(
        (await http(app.url).get('/events?type=subscription.renewed', { token: session.token })).body,
      ).toHaveLength(1);

      proxy.fault('none');
      await startWorker();
      await until(
        async () =>
          (await http(app.url).get('/events?type=subscription.renewed', { token: session.token })).body
            .length === 2,
        WAIT,
        'the credit by the second keeper',
      );

      // One charge on chain, credited once, for the period after the old end.
      const logs = await transfers();
      expect(logs.map((log) => log.args)).toEqual(
        [0, 1].map(() => ({ from: session.address, to: receiver, value: PRICE })),
      );
      const renewals = (
        (await http(app.url).get('/events?type=subscription.renewed', { token: session.token }))
          .body as Array<{
          data: Record<string, any>;
        }>
      ).reverse();
      expect(renewals.map((event) => event.data.payment.txHash)).toEqual(
        logs.map((log) => log.transactionHash.toLowerCase()),
      );
      expect(renewals[1]!.data).toMatchObject({
        previousPeriodEnd: end,
        currentPeriodEnd: new Date(Date.parse(end) + PERIOD_SECONDS * 1000).toISOString(),
      });
      const { rows } = await pool.query<{ state: string; replaced: string[] }>(
        `SELECT state, replaced_tx_hashes AS replaced FROM keeper_charges`,
      );
      expect(rows).toEqual([{ state: 'confirmed', replaced: [] }]);
      expect(
        await client.getTransactionCount({
          address: privateKeyToAccount(workerEnv.KEEPER_PRIVATE_KEY as Hex).address,
        }),
      ).toBe(1);
    },
    TEST_TIMEOUT,
  );
});
