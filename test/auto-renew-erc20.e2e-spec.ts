import { type Address, getAddress, type Hex, keccak256, type PublicClient, toHex } from 'viem';
import { type PrivateKeyAccount } from 'viem/accounts';
import { type Mandate, mandateTypedData } from '../src/auto-renew/mandate.js';
import {
  CHARGER_ARTIFACT,
  type ChargeOffer,
  eventsOf,
  mandateOnOffer,
  registrationBody,
  startChargerChain,
  statusOf,
  transfersFrom,
} from './utils/charger-chain.js';
import { erc20PaymentEnv, type TestChain, type TestToken } from './utils/evm.js';
import { http } from './utils/http.js';
import { until } from './utils/receiver.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

/** 5 tokens of 6 decimals. */
const PRICE = 5_000_000n;
/**
 * Real periods of 24 s whose charge is due 16 s before their end: registration fits in the 8 s before the window
 * opens, and a late sweep round (5 s apart) on a busy machine still charges before the period ends.
 */
const PERIOD_SECONDS = 24;
const LEAD_SECONDS = 16;
/** Two periods and the round that ends the mandate, with room for a busy machine. */
const WAIT = 200_000;
/** Above WAIT and the set-up around it (jest's default, 180 s, is below). */
const TEST_TIMEOUT = 300_000;

/** Who the helpers act for: an ordinary wallet's session, or a smart wallet's. */
type SignedIn = Pick<WalletSession, 'address' | 'token'>;

let saltCounter = 0;
const nextSalt = (): Hex => keccak256(toHex(`auto-renew-erc20-${saltCounter++}`));

/**
 * The whole automatic renewal under `erc20` on the in-process chain: the service's renewal sweep with the keeper's
 * executor (as wired by AutoRenewModule), the charging contract and the test token, reconciled against the token's
 * Transfer logs.
 */
describe('automatic renewal under erc20, charged by the keeper on chain', () => {
  const receiver = getAddress(newWallet().address);
  let chain: TestChain;
  let token: TestToken;
  let charger: Address;
  let keeperKey: Hex;
  let client: PublicClient;
  let app: TestApp;

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
  });
  afterAll(async () => {
    // The app first (its RPC clients keep sockets to the chain), then the chain.
    await app?.close();
    await chain?.stop();
  });

  const api = () => http(app.url);

  const events = (session: SignedIn, type: string) => eventsOf(app.url, session, type);
  const status = (session: WalletSession) => statusOf(app.url, session);

  const transfers = (payer: Address) => transfersFrom(client, token.address, payer);

  /** A signed-in wallet holding tokens that paid its first period by transfer, as a manual renewal does. */
  const subscribed = async (): Promise<{ session: WalletSession; end: string; firstTx: Hex }> => {
    const session = await login(app.url);
    await token.mint(session.address, 10n * PRICE);
    const firstTx = await token.transfer(session.address, receiver, PRICE);
    const renewed = await api().post('/subscriptions/renew', {
      token: session.token,
      body: { payment: { txHash: firstTx } },
    });
    expect(renewed.status).toBe(200);
    return { session, end: renewed.body.currentPeriodEnd as string, firstTx };
  };

  /** The mandate's terms from GET /subscriptions/plan, starting at the subscription's period end. */
  const terms = async (session: SignedIn, end: string, periods: bigint) => {
    const plan = await api().get('/subscriptions/plan');
    expect(plan.status).toBe(200);
    return mandateOnOffer(plan.body.autoRenew as ChargeOffer, session.address, end, periods, nextSalt());
  };

  const register = (session: SignedIn, mandate: Mandate, signature: Hex) =>
    api().post('/subscriptions/auto-renew', {
      token: session.token,
      body: registrationBody(mandate, signature),
    });

  const sign = (signer: PrivateKeyAccount, offer: Awaited<ReturnType<typeof terms>>) =>
    signer.signTypedData(mandateTypedData(offer.mandate, offer.chainId, offer.charger));

  it('offers the chain, the charging contract, the token and the payee in GET /subscriptions/plan', async () => {
    const plan = await api().get('/subscriptions/plan');
    expect(plan.body.autoRenew).toEqual({
      gateway: 'erc20',
      chainId: chain.chainId,
      charger: getAddress(charger),
      token: getAddress(token.address),
      payee: receiver,
      amount: PRICE.toString(),
      periodSeconds: PERIOD_SECONDS,
    });
  });

  it(
    'charges each period once on chain, moves the period end by one period, and stops when the mandate ends',
    async () => {
      const { session, end, firstTx } = await subscribed();
      await token.approve(session.address, charger, 10n * PRICE);
      const offer = await terms(session, end, 2n);
      const enabled = await register(session, offer.mandate, await sign(session.account, offer));
      expect(enabled.status).toBe(200);
      expect(enabled.body.autoRenew).toMatchObject({
        enabled: true,
        amount: PRICE.toString(),
        token: getAddress(token.address),
        failure: null,
      });
      expect(enabled.body.autoRenew.allowanceShortfall).toBeUndefined();
      // The mandate as the charging contract names it: what its payer would pass to `revoke`.
      expect(enabled.body.autoRenew.mandateHash).toBe(
        await client.readContract({
          address: charger,
          abi: CHARGER_ARTIFACT.abi,
          functionName: 'hashMandate',
          args: [offer.mandate],
        }),
      );

      // Both periods charged, then the mandate has none left: a cancel at period end, and nothing more charged.
      await until(
        async () => (await events(session, 'subscription.canceled')).length === 1,
        WAIT,
        'two charges and the end of the mandate',
      );
      const [canceled] = await events(session, 'subscription.canceled');
      expect(canceled!.data).toMatchObject({ cancelAtPeriodEnd: true, reason: 'mandate_ended' });

      const renewals = await events(session, 'subscription.renewed');
      const firstEnd = Date.parse(end);
      expect(renewals.map((event) => event.data.previousPeriodEnd)).toEqual([
        null,
        new Date(firstEnd).toISOString(),
        new Date(firstEnd + PERIOD_SECONDS * 1000).toISOString(),
      ]);
      expect((await status(session)).currentPeriodEnd).toBe(
        new Date(firstEnd + 2 * PERIOD_SECONDS * 1000).toISOString(),
      );

      // The chain: the manual payment and one transfer per period charged, each the payment its renewal credited.
      const logs = await transfers(session.address);
      expect(logs.map((log) => log.args)).toEqual(
        [0, 1, 2].map(() => ({ from: session.address, to: receiver, value: PRICE })),
      );
      expect(logs[0]!.transactionHash).toBe(firstTx);
      expect(renewals.map((event) => event.data.payment.txHash)).toEqual(
        logs.map((log) => log.transactionHash.toLowerCase()),
      );
      for (const [i, renewal] of renewals.entries()) {
        expect(renewal.data.payment).toMatchObject({
          gateway: 'erc20',
          amount: PRICE.toString(),
          chainId: chain.chainId,
          payer: session.address,
          logIndex: logs[i]!.logIndex,
        });
      }
      // The automatic charges were sent to the charging contract (by the keeper), not by the payer.
      for (const log of logs.slice(1)) {
        const sent = await client.getTransaction({ hash: log.transactionHash });
        expect(getAddress(sent.to!)).toBe(getAddress(charger));
      }
      expect(await token.balanceOf(session.address)).toBe(7n * PRICE);
    },
    TEST_TIMEOUT,
  );

  it(
    'reads the allowance again after a charge: a payer who approved one period sees the shortfall of the next',
    async () => {
      const { session, end } = await subscribed();
      await token.approve(session.address, charger, PRICE);
      const offer = await terms(session, end, 3n);
      const enabled = await register(session, offer.mandate, await sign(session.account, offer));
      expect(enabled.body.autoRenew.allowanceShortfall).toBeUndefined();
      await until(
        async () => (await events(session, 'subscription.renewed')).length === 2,
        WAIT,
        'the first automatic charge',
      );
      await until(
        async () => (await status(session)).autoRenew.allowanceShortfall === PRICE.toString(),
        WAIT,
        'the shortfall of the next period',
      );
      await api().post('/subscriptions/auto-renew/disable', { token: session.token, body: {} });
    },
    TEST_TIMEOUT,
  );

  it(
    'charges a smart-wallet payer (ERC-1271): the owner signs for the wallet, the wallet pays',
    async () => {
      const owner = newWallet();
      const wallet = getAddress(await chain.deployWallet(owner.address));
      // Signed in as the wallet: the owner's personal_sign, checked through the wallet's isValidSignature.
      const challenge = await api().post('/auth/nonce', { body: { address: wallet } });
      const verified = await api().post('/auth/verify', {
        body: {
          address: wallet,
          signature: await owner.signMessage({ message: challenge.body.message as string }),
          message: challenge.body.message,
        },
      });
      expect(verified.status).toBe(200);
      const session: SignedIn = { address: wallet, token: verified.body.token as string };

      await token.mint(wallet, 10n * PRICE);
      const firstTx = await token.transfer(wallet, receiver, PRICE);
      const renewed = await api().post('/subscriptions/renew', {
        token: session.token,
        body: { payment: { txHash: firstTx } },
      });
      expect(renewed.status).toBe(200);
      const end = renewed.body.currentPeriodEnd as string;
      await token.approve(wallet, charger, 10n * PRICE);
      const offer = await terms(session, end, 1n);
      // The mandate names the wallet as payer; its owner's signature over the digest is the wallet's approval.
      const enabled = await register(session, offer.mandate, await sign(owner, offer));
      expect(enabled.status).toBe(200);
      expect(enabled.body.autoRenew).toMatchObject({ enabled: true, failure: null });

      await until(
        async () => (await events(session, 'subscription.canceled')).length === 1,
        WAIT,
        'the charge and the end of the one-period mandate',
      );
      const renewals = await events(session, 'subscription.renewed');
      const logs = await transfers(wallet);
      expect(logs.map((log) => log.args)).toEqual(
        [0, 1].map(() => ({ from: wallet, to: receiver, value: PRICE })),
      );
      expect(renewals.map((event) => event.data.payment.txHash)).toEqual(
        logs.map((log) => log.transactionHash.toLowerCase()),
      );
      expect(renewals[1]!.data).toMatchObject({
        previousPeriodEnd: end,
        payment: { gateway: 'erc20', payer: wallet, amount: PRICE.toString() },
      });
      const sent = await client.getTransaction({ hash: logs[1]!.transactionHash });
      expect(getAddress(sent.to!)).toBe(getAddress(charger));
      expect(await token.balanceOf(wallet)).toBe(8n * PRICE);
    },
    TEST_TIMEOUT,
  );

  it('refuses a mandate signed by another key, and one for another amount, with a clear 400', async () => {
    const { session, end } = await subscribed();
    const offer = await terms(session, end, 12n);

    const forged = await register(session, offer.mandate, await sign(newWallet(), offer));
    expect(forged.status).toBe(400);
    expect(forged.body.details.code).toBe('mandate_bad_signature');
    expect(forged.body.error).toEqual(expect.any(String));

    const cheaper = { ...offer, mandate: { ...offer.mandate, amount: PRICE - 1n } };
    const wrongAmount = await register(session, cheaper.mandate, await sign(session.account, cheaper));
    expect(wrongAmount.status).toBe(400);
    expect(wrongAmount.body.details.code).toBe('mandate_wrong_amount');
    expect(wrongAmount.body.error).toEqual(expect.any(String));

    expect((await status(session)).autoRenew.enabled).toBe(false);
  });

  it(
    'without an allowance: the shortfall is reported, then past_due with a reason naming the allowance',
    async () => {
      const { session, end } = await subscribed();
      const offer = await terms(session, end, 12n);
      const enabled = await register(session, offer.mandate, await sign(session.account, offer));
      expect(enabled.status).toBe(200);
      expect(enabled.body.autoRenew.allowanceShortfall).toBe(PRICE.toString());

      // `past_due` alone may be the hold while the charge is asked for (within a minute of the period end).
      await until(async () => (await status(session)).autoRenew.failure !== null, WAIT, 'the failure');
      const pastDue = await status(session);
      expect(pastDue.status).toBe('past_due');
      expect(pastDue.active).toBe(true);
      expect(pastDue.autoRenew.failure).toMatchObject({
        reason: 'insufficient_allowance',
        message: expect.stringMatching(/allowance/),
      });
      const [failed] = await events(session, 'subscription.payment_failed');
      expect(failed!.data).toMatchObject({
        status: 'past_due',
        reason: 'insufficient_allowance',
        message: expect.stringContaining('allowance is 0 TUSD, the period costs 5 TUSD'),
      });
      // Nothing moved but the manual payment.
      expect(await transfers(session.address)).toHaveLength(1);
      await api().post('/subscriptions/auto-renew/disable', { token: session.token, body: {} });
    },
    TEST_TIMEOUT,
  );
});
