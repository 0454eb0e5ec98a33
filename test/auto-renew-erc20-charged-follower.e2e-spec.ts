import pg from 'pg';
import { type Address, getAddress, type Hex, keccak256, type PublicClient, toHex } from 'viem';
import { type Mandate, mandateTypedData } from '../src/auto-renew/mandate.js';
import { Metrics } from '../src/metrics/metrics.service.js';
import {
  type ChargeOffer,
  CHARGER_ARTIFACT,
  eventsOf,
  fundedPayer,
  mandateOnOffer,
  registrationBody,
  startChargerChain,
  statusOf,
  transfersFrom,
} from './utils/charger-chain.js';
import { erc20PaymentEnv, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import { sleep, until } from './utils/receiver.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { newWallet, type WalletSession } from './utils/wallet.js';

/** 5 tokens of 6 decimals. */
const PRICE = 5_000_000n;
/**
 * Periods of 60 s whose charge is due 45 s before their end: the renewal sweep charges 15 s after a manual renewal,
 * which leaves time to register (and disable) a mandate first; a credit lands well before the period ends.
 */
const PERIOD_SECONDS = 60;
const LEAD_SECONDS = 45;
const WAIT = 120_000;
const TEST_TIMEOUT = 300_000;

let saltCounter = 0;
const nextSalt = (): Hex => keccak256(toHex(`auto-renew-charged-follower-${saltCounter++}`));

/**
 * The Charged-log follower on the in-process chain: a charge someone else makes of a mandate Tollgate no longer
 * uses is credited once; a charge of an enabled mandate is left to the renewal sweep; a charge of a mandate Tollgate
 * never registered is passed over. Reconciled against the token's Transfer logs, the history and the payments.
 */
describe('automatic renewal under erc20: the Charged-log follower', () => {
  const receiver = getAddress(newWallet().address);
  let chain: TestChain;
  let token: TestToken;
  let charger: Address;
  let keeperKey: Hex;
  let client: PublicClient;
  let app: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    ({ chain, token, charger, keeperKey, client } = await startChargerChain());
    app = await startTestApp({
      env: {
        ...erc20PaymentEnv(chain, token, receiver, PRICE),
        SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
        AUTO_RENEW_LEAD_SECONDS: String(LEAD_SECONDS),
        AUTO_RENEW_RETRY_SECONDS: '3600',
        AUTO_RENEW_CHARGER_ADDRESS: charger,
        KEEPER_PRIVATE_KEY: keeperKey,
      },
    });
    db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
    await chain?.stop();
  });

  const api = () => http(app.url);

  const events = (session: WalletSession, type: string) => eventsOf(app.url, session, type);
  const status = (session: WalletSession) => statusOf(app.url, session);

  const transfers = (payer: Address) => transfersFrom(client, token.address, payer);

  const offer = async () => (await api().get('/subscriptions/plan')).body.autoRenew as ChargeOffer;

  /** `condition` polled every half second until it holds. */
  const eventually = (condition: () => Promise<boolean>, what: string) =>
    until(
      async () => {
        if (await condition()) return true;
        await sleep(500);
        return false;
      },
      WAIT,
      what,
    );

  /** The first block the follower has not read yet (0 before its first round). */
  const cursor = async (): Promise<bigint> => {
    const { rows } = await db.query<{ next_block: string }>('SELECT next_block FROM auto_renew_log_cursors');
    return rows.length === 0 ? 0n : BigInt(rows[0]!.next_block);
  };

  /** A block is mined and the follower reads past it, `rounds` times: whatever it would do, it has done. */
  const followerRounds = async (rounds: number) => {
    for (let i = 0; i < rounds; i++) {
      await chain.mine(1);
      const block = await client.getBlockNumber();
      await eventually(async () => (await cursor()) > block, `the follower to read block ${block}`).catch(
        (error: Error) => {
          throw new Error(`${error.message}; the follower said ${JSON.stringify(followerComplaints())}`);
        },
      );
    }
  };

  /** A funded payer's manual renewal, then a signed mandate of one period from its period end, registered. */
  const registered = async (
    periods = 1n,
  ): Promise<{
    session: WalletSession;
    end: string;
    mandate: Mandate;
    signature: Hex;
  }> => {
    const { session, firstTx } = await fundedPayer(app.url, { token, charger }, { receiver, price: PRICE });
    const renewed = await api().post('/subscriptions/renew', {
      token: session.token,
      body: { payment: { txHash: firstTx } },
    });
    expect(renewed.status).toBe(200);
    const end = renewed.body.currentPeriodEnd as string;
    const signed = mandateOnOffer(await offer(), session.address, end, periods, nextSalt());
    const signature = await session.account.signTypedData(
      mandateTypedData(signed.mandate, signed.chainId, signed.charger),
    );
    const answer = await api().post('/subscriptions/auto-renew', {
      token: session.token,
      body: registrationBody(signed.mandate, signature),
    });
    expect(answer.status).toBe(200);
    return { session, end, mandate: signed.mandate, signature };
  };

  /** `charge` called by an account that is not the keeper (impersonated on the in-process chain). */
  const chargeAsThirdParty = async (mandate: Mandate, signature: Hex, periodIndex: bigint): Promise<Hex> => {
    const caller = getAddress(newWallet().address);
    await chain.fund(caller);
    return chain.sendAs(caller, charger, CHARGER_ARTIFACT.abi, 'charge', [mandate, signature, periodIndex]);
  };

  const paymentsOf = async (txHash: Hex) =>
    (
      await db.query<{ address: string; gateway: string; amount_minor: string; log_index: number }>(
        'SELECT address, gateway, amount_minor, log_index FROM payments WHERE tx_hash = $1',
        [txHash.toLowerCase()],
      )
    ).rows;

  /** What the follower logged as wrong, but for a slow answer of the chain (a loaded machine's, retried next round). */
  const followerComplaints = () =>
    app.logs.filter(
      (line) =>
        line.context === 'ChargedLogFollower' &&
        Number(line.level) >= 40 &&
        !String(line.msg).includes("the chain's endpoint did not answer"),
    );

  const after = (end: string, periods: number) =>
    new Date(Date.parse(end) + periods * PERIOD_SECONDS * 1000).toISOString();

  it(
    'credits once a period charged by a third party under a mandate disabled in Tollgate',
    async () => {
      const { session, end, mandate, signature } = await registered();
      const disabled = await api().post('/subscriptions/auto-renew/disable', {
        token: session.token,
        body: {},
      });
      expect(disabled.status).toBe(200);
      expect((await status(session)).autoRenew).toMatchObject({ enabled: false });

      // The mandate is still valid on chain (never revoked): anyone may charge its first period.
      const txHash = await chargeAsThirdParty(mandate, signature, 0n);
      const logs = await transfers(session.address);
      expect(logs.map((log) => log.args)).toEqual(
        [0, 1].map(() => ({ from: session.address, to: receiver, value: PRICE })),
      );
      expect(logs[1]!.transactionHash.toLowerCase()).toBe(txHash.toLowerCase());

      await eventually(
        async () => (await status(session)).currentPeriodEnd === after(end, 1),
        'the follower to credit the charge',
      );
      // The payment cites the charge's transfer; the history and the renewed event show it.
      expect(await paymentsOf(txHash)).toEqual([
        {
          address: session.address.toLowerCase(),
          gateway: 'erc20',
          amount_minor: PRICE.toString(),
          log_index: logs[1]!.logIndex,
        },
      ]);
      const history = await api().get('/subscriptions/history', { token: session.token });
      expect(history.status).toBe(200);
      const cited = (history.body as Array<Record<string, any>>).filter(
        (entry) => entry.payment?.txHash === txHash.toLowerCase(),
      );
      expect(cited).toHaveLength(1);
      expect(cited[0]).toMatchObject({
        type: 'renewed',
        actor: 'system',
        previousPeriodEnd: end,
        currentPeriodEnd: after(end, 1),
        payment: { gateway: 'erc20', amount: PRICE.toString(), logIndex: logs[1]!.logIndex },
      });
      const renewals = await events(session, 'subscription.renewed');
      expect(renewals.map((event) => event.data.payment.txHash)).toEqual(
        logs.map((log) => log.transactionHash.toLowerCase()),
      );

      // Exactly once: more rounds read past the charge and credit nothing more.
      await followerRounds(3);
      expect((await status(session)).currentPeriodEnd).toBe(after(end, 1));
      expect(await events(session, 'subscription.renewed')).toHaveLength(2);
      expect(await paymentsOf(txHash)).toHaveLength(1);
      expect(followerComplaints()).toEqual([]);
      const counted = await app.app
        .get(Metrics)
        .registry.getSingleMetricAsString('tollgate_auto_renew_follower_credits_total');
      expect(counted).toMatch(/^tollgate_auto_renew_follower_credits_total 1$/m);
    },
    TEST_TIMEOUT,
  );

  it(
    'leaves a charge of an enabled mandate to the renewal sweep, which credits it once',
    async () => {
      const { session, end, mandate, signature } = await registered();
      // Charged by someone else before the sweep's turn: the keeper finds it charged and reconciles it.
      const txHash = await chargeAsThirdParty(mandate, signature, 0n);
      await eventually(
        async () => (await status(session)).currentPeriodEnd === after(end, 1),
        'the renewal sweep to credit the charge',
      );
      await followerRounds(3);
      expect((await status(session)).currentPeriodEnd).toBe(after(end, 1));
      const logs = await transfers(session.address);
      expect(logs).toHaveLength(2);
      const renewals = await events(session, 'subscription.renewed');
      expect(renewals.map((event) => event.data.payment.txHash)).toEqual(
        logs.map((log) => log.transactionHash.toLowerCase()),
      );
      expect(renewals[1]!.data.payment.txHash).toBe(txHash.toLowerCase());
      expect(await paymentsOf(txHash)).toHaveLength(1);
      expect(followerComplaints()).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'credits a charge left to the renewal sweep once the mandate is disabled before the sweep got to it',
    async () => {
      const { session, end, mandate, signature } = await registered();
      // The sweep's turn an hour away: the charge below is read by the follower while the mandate is enabled.
      await db.query(
        `UPDATE auto_renew_mandates SET next_charge_at = now() + interval '1 hour' WHERE address = $1`,
        [session.address.toLowerCase()],
      );
      const txHash = await chargeAsThirdParty(mandate, signature, 0n);
      await followerRounds(1);
      expect(await paymentsOf(txHash)).toEqual([]);

      const disabled = await api().post('/subscriptions/auto-renew/disable', {
        token: session.token,
        body: {},
      });
      expect(disabled.status).toBe(200);
      await eventually(
        async () => (await paymentsOf(txHash)).length === 1,
        'the follower to credit the charge the sweep will not',
      );
      expect((await status(session)).currentPeriodEnd).toBe(after(end, 1));
      await followerRounds(2);
      expect((await status(session)).currentPeriodEnd).toBe(after(end, 1));
      expect(await paymentsOf(txHash)).toHaveLength(1);
      expect(await events(session, 'subscription.renewed')).toHaveLength(2);
      expect(followerComplaints()).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'credits a charge of an enabled mandate for a period a manual renewal moved the subscription past',
    async () => {
      const { session, end, mandate, signature } = await registered(3n);
      // Paid by hand for the period the mandate's first charge was for: the sweep is now due for the second.
      const byHand = await token.transfer(session.address, receiver, PRICE);
      const renewed = await api().post('/subscriptions/renew', {
        token: session.token,
        body: { payment: { txHash: byHand } },
      });
      expect(renewed.status).toBe(200);
      expect(renewed.body.currentPeriodEnd).toBe(after(end, 1));

      // The first period charged all the same (a charge that was on its way, or a late one by anyone).
      const txHash = await chargeAsThirdParty(mandate, signature, 0n);
      // Its own credit (the keeper's charge of the second period, due a minute later, would move the end too).
      await eventually(
        async () => (await paymentsOf(txHash)).length === 1,
        'the follower to credit the charge the sweep is past',
      );
      expect(await status(session)).toMatchObject({
        currentPeriodEnd: after(end, 2),
        autoRenew: { enabled: true },
      });
      await followerRounds(2);
      expect((await status(session)).currentPeriodEnd).toBe(after(end, 2));
      const logs = await transfers(session.address);
      expect(logs).toHaveLength(3);
      const renewals = await events(session, 'subscription.renewed');
      expect(renewals.map((event) => event.data.payment.txHash)).toEqual(
        logs.map((log) => log.transactionHash.toLowerCase()),
      );
      expect(await paymentsOf(txHash)).toHaveLength(1);
      expect(followerComplaints()).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'passes over a charge of a mandate Tollgate never registered',
    async () => {
      // A wallet that never signed in: its mandate on the offer's terms, charged on chain by a third party.
      const stranger = newWallet();
      await token.mint(stranger.address, 2n * PRICE);
      await token.approve(stranger.address, charger, 2n * PRICE);
      const start = new Date(Date.now() - 1000).toISOString();
      const signed = mandateOnOffer(await offer(), stranger.address, start, 1n, nextSalt());
      const signature = await stranger.signTypedData(
        mandateTypedData(signed.mandate, signed.chainId, signed.charger),
      );
      const txHash = await chargeAsThirdParty(signed.mandate, signature, 0n);
      expect(await transfers(stranger.address)).toHaveLength(1);

      await followerRounds(2);
      expect(await paymentsOf(txHash)).toEqual([]);
      const { rows } = await db.query('SELECT 1 FROM subscriptions WHERE address = $1', [
        stranger.address.toLowerCase(),
      ]);
      expect(rows).toEqual([]);
      expect(followerComplaints()).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
