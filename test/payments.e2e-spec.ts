import { randomBytes, randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import pg from 'pg';
import { getAddress, type Hex } from 'viem';
import { freePort } from '../src/common/net/free-port.js';
import { SubscriptionsRepository } from '../src/subscriptions/subscriptions.repository.js';
import { erc20PaymentEnv, startTestChain, type TestChain, type TestToken } from './utils/evm.js';
import { http, type JsonResponse } from './utils/http.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTcpProxy, type TcpProxy } from './utils/tcp-proxy.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

const PERIOD_SECONDS = 3600;
const PERIOD_MS = PERIOD_SECONDS * 1000;
/** 5 tokens of 6 decimals. */
const PRICE = 5_000_000n;

const ms = (iso: string): number => Date.parse(iso);
const randomHash = (): Hex => `0x${randomBytes(32).toString('hex')}`;

function expectRefused(response: JsonResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.details?.code }).toEqual({ status, code });
  expect(response.body.error).toEqual(expect.any(String));
}

/** What the tests need of an instance, in this process or in a child process. */
type Instance = Pick<TestApp, 'url' | 'close'>;

describe('payments behind renew: erc20 on an in-process chain', () => {
  const operatorWallet = newWallet();
  const receiver = getAddress(newWallet().address);
  let chain: TestChain;
  let token: TestToken;
  let otherToken: TestToken;
  let proxy: TcpProxy;
  let paid: TestApp;
  const apps: Instance[] = [];
  let db: pg.Client;
  let operator: WalletSession;

  const paidEnv = (env: Record<string, string> = {}): Record<string, string> => ({
    ...erc20PaymentEnv(chain, token, receiver, PRICE),
    OPERATOR_ADDRESSES: operatorWallet.address,
    SUBSCRIPTION_PERIOD_SECONDS: String(PERIOD_SECONDS),
    WEBHOOK_WORKERS: 'false',
    ...env,
  });

  /**
   * A further instance on the same database with some settings changed. Passport keeps one strategy registry per
   * process, so it runs as a process of its own beside the in-process `paid` app.
   */
  const startPaidProcess = async (env: Record<string, string>): Promise<Instance> => {
    const service = await startServiceProcess(paid.databaseUrl, paidEnv(env));
    return { url: service.url, close: async () => void (await service.kill()) };
  };

  beforeAll(async () => {
    chain = await startTestChain();
    token = await chain.deployToken('Test USD', 'TUSD', 6);
    otherToken = await chain.deployToken('Other USD', 'OUSD', 6);
    paid = await startTestApp({ env: paidEnv() });
    apps.push(paid);
    db = new pg.Client({ connectionString: paid.databaseUrl });
    await db.connect();
    operator = await login(paid.url, operatorWallet);
    const { port } = new URL(chain.rpcUrl);
    proxy = await startTcpProxy('127.0.0.1', Number(port));
  });
  afterAll(async () => {
    await db?.end();
    // Apps first (their RPC clients keep sockets to the chain), then the proxy and the chain.
    for (const app of apps) await app.close();
    await proxy?.close();
    await chain?.stop();
  });

  const api = (app: Instance = paid) => http(app.url);
  const renew = (
    who: WalletSession,
    body: object,
    options: { app?: Instance; idempotencyKey?: string; token?: string } = {},
  ) =>
    api(options.app).post('/subscriptions/renew', {
      token: options.token ?? who.token,
      body,
      headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : undefined,
    });
  const status = (who: WalletSession, address: string = who.address) =>
    api().get(`/subscriptions/status?address=${address}`, { token: who.token });
  const history = (who: WalletSession, address: string = who.address) =>
    api().get(`/subscriptions/history?address=${address}`, { token: who.token });
  const count = async (table: 'payments' | 'subscription_events' | 'events', address: string) => {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE address = $1`, [
      address.toLowerCase(),
    ]);
    return rows[0].n as number;
  };
  /** A logged-in wallet holding `balance` of the payment token. */
  const payer = async (balance = PRICE * 10n) => {
    const session = await login(paid.url);
    await token.mint(session.address, balance);
    return session;
  };
  const expectNothingRecorded = async (who: WalletSession) => {
    expect((await status(who)).body.status).toBe('none');
    for (const table of ['payments', 'subscription_events', 'events'] as const) {
      expect(await count(table, who.address)).toBe(0);
    }
  };

  describe('GET /subscriptions/plan', () => {
    it('is public and says what to pay, with the symbol and decimals read from the token', async () => {
      const response = await api().get('/subscriptions/plan');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        gateway: 'erc20',
        periodSeconds: PERIOD_SECONDS,
        erc20: {
          chainId: chain.chainId,
          token: getAddress(token.address),
          symbol: 'TUSD',
          decimals: 6,
          receiver,
          pricePerPeriod: '5000000',
          confirmations: 1,
        },
        // No charging contract configured: automatic renewal is not offered.
        autoRenew: null,
      });
    });
  });

  describe('accepted payments', () => {
    it('credits a transfer of the price for one period, records it and shows it in the history', async () => {
      const user = await payer();
      const txHash = await token.transfer(user.address, receiver, PRICE);

      const renewed = await renew(user, { payment: { txHash } });
      expect(renewed.status).toBe(200);
      expect(renewed.body).toMatchObject({ address: user.address, status: 'active', active: true });
      expect(ms(renewed.body.currentPeriodEnd) - ms(renewed.body.currentPeriodStart)).toBe(PERIOD_MS);
      expect(await token.balanceOf(receiver)).toBeGreaterThanOrEqual(PRICE);

      const payment = {
        gateway: 'erc20',
        amount: '5000000',
        chainId: chain.chainId,
        token: getAddress(token.address),
        payer: user.address,
        txHash: txHash.toLowerCase(),
        logIndex: 0,
      };
      const entries = (await history(user)).body;
      expect(entries).toEqual([expect.objectContaining({ type: 'renewed', payment })]);

      const { rows: events } = await db.query(`SELECT type, data FROM events WHERE address = $1`, [
        user.address.toLowerCase(),
      ]);
      expect(events).toEqual([
        { type: 'subscription.renewed', data: expect.objectContaining({ periods: 1, payment }) },
      ]);
      const { rows: payments } = await db.query(
        `SELECT gateway, amount_minor, chain_id, token, payer, tx_hash, log_index, period_start, period_end
         FROM payments WHERE address = $1`,
        [user.address.toLowerCase()],
      );
      expect(payments).toEqual([
        {
          gateway: 'erc20',
          amount_minor: '5000000',
          chain_id: String(chain.chainId),
          token: token.address.toLowerCase(),
          payer: user.address.toLowerCase(),
          tx_hash: txHash.toLowerCase(),
          log_index: 0,
          period_start: new Date(renewed.body.currentPeriodStart),
          period_end: new Date(renewed.body.currentPeriodEnd),
        },
      ]);

      // The same hash again: refused, nothing changes.
      const again = await renew(user, { payment: { txHash } });
      expectRefused(again, 409, 'payment_already_used');
      expect((await status(user)).body).toEqual(renewed.body);
      expect(await count('payments', user.address)).toBe(1);
      expect(await count('events', user.address)).toBe(1);
    });

    it('buys floor(amount / price) periods, extending an active subscription from its end', async () => {
      const user = await payer();
      const first = await renew(user, {
        payment: { txHash: await token.transfer(user.address, receiver, PRICE) },
      });
      expect(first.status).toBe(200);
      const second = await renew(user, {
        payment: { txHash: await token.transfer(user.address, receiver, (PRICE * 5n) / 2n) },
      });
      expect(second.status).toBe(200);
      expect(ms(second.body.currentPeriodStart)).toBe(ms(first.body.currentPeriodStart));
      expect(ms(second.body.currentPeriodEnd) - ms(first.body.currentPeriodEnd)).toBe(2 * PERIOD_MS);
      expect((await history(user)).body[0].payment.amount).toBe('12500000');
    });

    it('credits each qualifying transfer of one transaction once', async () => {
      const user = await payer();
      const txHash = await token.transferMany(user.address, [
        { to: receiver, amount: PRICE },
        { to: getAddress(newWallet().address), amount: PRICE },
        { to: receiver, amount: PRICE * 2n },
      ]);
      const first = await renew(user, { payment: { txHash } });
      const second = await renew(user, { payment: { txHash } });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(ms(second.body.currentPeriodEnd) - ms(first.body.currentPeriodEnd)).toBe(2 * PERIOD_MS);
      expect(
        (await history(user)).body.map((entry: { payment: { logIndex: number } }) => entry.payment.logIndex),
      ).toEqual([2, 0]);
      expectRefused(await renew(user, { payment: { txHash } }), 409, 'payment_already_used');
    });

    it('lets an operator pay from its own wallet for another address, and records the operator as payer', async () => {
      await token.mint(operatorWallet.address, PRICE);
      const customer = newWallet().address;
      const txHash = await token.transfer(operatorWallet.address, receiver, PRICE);
      const renewed = await renew(operator, { address: customer, payment: { txHash } });
      expect(renewed.status).toBe(200);
      expect(renewed.body).toMatchObject({ address: customer, status: 'active' });
      const [entry] = (await history(operator, customer)).body;
      expect(entry.payment).toMatchObject({ payer: operatorWallet.address, txHash: txHash.toLowerCase() });
      expect(entry.actor).toBe(operatorWallet.address);
    });

    it('lets an operator credit a transfer the subscriber made from its own wallet', async () => {
      const user = await payer();
      const txHash = await token.transfer(user.address, receiver, PRICE);
      const renewed = await renew(operator, { address: user.address, payment: { txHash } });
      expect(renewed.status).toBe(200);
      expect((await history(user)).body[0].payment.payer).toBe(user.address);
    });
  });

  describe('refused payments change nothing', () => {
    it('refuses a renewal without a payment: payment_required', async () => {
      const user = await payer();
      expectRefused(await renew(user, {}), 402, 'payment_required');
      await expectNothingRecorded(user);
    });

    it.each([
      ['not a hash', { txHash: '0x1234' }],
      ['missing its hash', {}],
      ['not an object', '0xabc'],
    ])('answers 400 validation_failed for a payment %s', async (_case, payment) => {
      const user = await payer();
      expectRefused(await renew(user, { payment }), 400, 'validation_failed');
      await expectNothingRecorded(user);
    });

    it('refuses an unknown hash: payment_not_found', async () => {
      const user = await payer();
      const response = await renew(user, { payment: { txHash: randomHash() } });
      expectRefused(response, 402, 'payment_not_found');
      await expectNothingRecorded(user);
    });

    it('refuses a reverted transaction: payment_reverted', async () => {
      const user = await payer();
      const txHash = await token.revertedTransfer(receiver, PRICE);
      expectRefused(await renew(user, { payment: { txHash } }), 402, 'payment_reverted');
      await expectNothingRecorded(user);
    });

    it('refuses a transfer of another token: payment_wrong_token', async () => {
      const user = await payer();
      await otherToken.mint(user.address, PRICE);
      const txHash = await otherToken.transfer(user.address, receiver, PRICE);
      const response = await renew(user, { payment: { txHash } });
      expectRefused(response, 402, 'payment_wrong_token');
      await expectNothingRecorded(user);
    });

    it('refuses a transfer to another address: payment_wrong_receiver', async () => {
      const user = await payer();
      const txHash = await token.transfer(user.address, newWallet().address, PRICE);
      expectRefused(await renew(user, { payment: { txHash } }), 402, 'payment_wrong_receiver');
      await expectNothingRecorded(user);
    });

    it('refuses a transfer of less than the price: payment_insufficient', async () => {
      const user = await payer();
      const txHash = await token.transfer(user.address, receiver, PRICE - 1n);
      const response = await renew(user, { payment: { txHash } });
      expectRefused(response, 402, 'payment_insufficient');
      expect(response.body.details).toMatchObject({ amount: '4999999', pricePerPeriod: '5000000' });
      await expectNothingRecorded(user);
    });

    it("refuses someone else's transfer: payment_wrong_payer, and the payer can still use it", async () => {
      const owner = await payer();
      const other = await payer();
      const txHash = await token.transfer(owner.address, receiver, PRICE);
      const response = await renew(other, { payment: { txHash } });
      expectRefused(response, 402, 'payment_wrong_payer');
      await expectNothingRecorded(other);
      expect((await renew(owner, { payment: { txHash } })).status).toBe(200);
    });
  });

  describe('double spending', () => {
    it('gives exactly one success to 10 concurrent renewals with one hash', async () => {
      const user = await payer();
      const txHash = await token.transfer(user.address, receiver, PRICE);
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => renew(user, { payment: { txHash } })),
      );
      const outcomes = responses.map((r) => (r.status === 200 ? 'ok' : `${r.status} ${r.body.details.code}`));
      expect(outcomes.sort()).toEqual([...Array(9).fill('409 payment_already_used'), 'ok']);
      const current = (await status(user)).body;
      expect(ms(current.currentPeriodEnd) - ms(current.currentPeriodStart)).toBe(PERIOD_MS);
      expect(await count('payments', user.address)).toBe(1);
      expect(await count('subscription_events', user.address)).toBe(1);
      expect(await count('events', user.address)).toBe(1);
    });

    it("gives exactly one success when an operator's transfer is cited for several addresses at once", async () => {
      await token.mint(operatorWallet.address, PRICE);
      const txHash = await token.transfer(operatorWallet.address, receiver, PRICE);
      const customers = Array.from({ length: 5 }, () => newWallet().address);
      const responses = await Promise.all(
        customers.map((address) => renew(operator, { address, payment: { txHash } })),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      expect(responses.filter((r) => r.body.details?.code === 'payment_already_used')).toHaveLength(4);
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM payments WHERE tx_hash = $1`, [
        txHash.toLowerCase(),
      ]);
      expect(rows[0].n).toBe(1);
    });
  });

  describe('a transfer credited between the check and the write', () => {
    afterEach(() => {
      jest.restoreAllMocks();
    });

    /** An enabled configuration of `owner` for every event, with no worker to take its deliveries. */
    const webhook = async (owner: string): Promise<string> => {
      const { rows } = await db.query(
        `INSERT INTO webhook_endpoints (owner_address, url, events, secret)
         VALUES ($1, $2, ARRAY['*'], $3) RETURNING id`,
        [
          owner.toLowerCase(),
          `http://127.0.0.1:9/${randomUUID()}`,
          `whsec_${randomBytes(32).toString('base64')}`,
        ],
      );
      return rows[0].id as string;
    };
    const deliveries = async (endpointId: string): Promise<number> => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`,
        [endpointId],
      );
      return rows[0].n as number;
    };
    /** The race the unique index settles: the check before the row lock sees the transfer not credited yet. */
    const missCheck = () =>
      jest.spyOn(paid.app.get(SubscriptionsRepository), 'creditedTransfers').mockResolvedValue(new Set());

    it('rolls back a renewal of an existing subscription entirely: no history, no event, no delivery', async () => {
      const user = await payer();
      const txHash = await token.transfer(user.address, receiver, PRICE);
      expect((await renew(user, { payment: { txHash } })).status).toBe(200);
      const before = (await status(user)).body;
      const endpoint = await webhook(user.address);

      missCheck();
      expectRefused(await renew(user, { payment: { txHash } }), 409, 'payment_already_used');
      expect((await status(user)).body).toEqual(before);
      for (const table of ['payments', 'subscription_events', 'events'] as const) {
        expect(await count(table, user.address)).toBe(1);
      }
      expect(await deliveries(endpoint)).toBe(0);
    });

    it('rolls back a first renewal entirely: not even the subscription is left', async () => {
      await token.mint(operatorWallet.address, PRICE);
      const txHash = await token.transfer(operatorWallet.address, receiver, PRICE);
      const [credited, other] = [newWallet().address, newWallet().address];
      expect((await renew(operator, { address: credited, payment: { txHash } })).status).toBe(200);
      // Operators receive every subscription event.
      const endpoint = await webhook(operatorWallet.address);

      missCheck();
      expectRefused(
        await renew(operator, { address: other, payment: { txHash } }),
        409,
        'payment_already_used',
      );
      expect((await status(operator, other)).body.status).toBe('none');
      const { rowCount } = await db.query(`SELECT 1 FROM subscriptions WHERE address = $1`, [
        other.toLowerCase(),
      ]);
      expect(rowCount).toBe(0);
      for (const table of ['payments', 'subscription_events', 'events'] as const) {
        expect(await count(table, other)).toBe(0);
      }
      expect(await deliveries(endpoint)).toBe(0);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same payment and refuses the key with another one', async () => {
      const user = await payer();
      const key = randomUUID();
      const txHash = await token.transfer(user.address, receiver, PRICE);
      const first = await renew(user, { payment: { txHash } }, { idempotencyKey: key });
      const replay = await renew(user, { payment: { txHash } }, { idempotencyKey: key });
      expect(first.status).toBe(200);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(first.body);
      expect(await count('payments', user.address)).toBe(1);

      const other = await token.transfer(user.address, receiver, PRICE);
      expectRefused(
        await renew(user, { payment: { txHash: other } }, { idempotencyKey: key }),
        400,
        'idempotency_key_reused',
      );
    });

    it('keeps a final refusal for replay', async () => {
      const user = await payer();
      const key = randomUUID();
      const txHash = await token.transfer(user.address, receiver, PRICE - 1n);
      expectRefused(
        await renew(user, { payment: { txHash } }, { idempotencyKey: key }),
        402,
        'payment_insufficient',
      );
      expectRefused(
        await renew(user, { payment: { txHash } }, { idempotencyKey: key }),
        402,
        'payment_insufficient',
      );
    });
  });

  describe('confirmations', () => {
    it('refuses a transfer short of the required confirmations, then credits it once they are reached', async () => {
      const strict = await startPaidProcess({ PAYMENT_CONFIRMATIONS: '3' });
      apps.push(strict);
      const user = await payer();
      const key = randomUUID();
      const txHash = await token.transfer(user.address, receiver, PRICE);

      const early = await renew(user, { payment: { txHash } }, { app: strict, idempotencyKey: key });
      expectRefused(early, 409, 'payment_not_confirmed');
      expect(early.body.details).toEqual({ code: 'payment_not_confirmed', confirmations: 1, required: 3 });
      await expectNothingRecorded(user);

      await chain.mine(1);
      expectRefused(
        await renew(user, { payment: { txHash } }, { app: strict, idempotencyKey: key }),
        409,
        'payment_not_confirmed',
      );
      await chain.mine(1);
      // The refusal did not use up the key: the same request now succeeds under it.
      const later = await renew(user, { payment: { txHash } }, { app: strict, idempotencyKey: key });
      expect(later.status).toBe(200);
      expect(await count('payments', user.address)).toBe(1);
    });
  });

  describe('chain unreachable', () => {
    it('fails closed with 503 and credits nothing; the same payment is credited once the chain is back', async () => {
      const proxied = await startPaidProcess({ CHAIN_RPC_URL: `http://127.0.0.1:${proxy.port}` });
      apps.push(proxied);
      const user = await payer();
      const key = randomUUID();
      const txHash = await token.transfer(user.address, receiver, PRICE);

      await proxy.cut();
      try {
        const down = await renew(user, { payment: { txHash } }, { app: proxied, idempotencyKey: key });
        expectRefused(down, 503, 'payment_chain_unavailable');
        await expectNothingRecorded(user);
        expectRefused(await api(proxied).get('/subscriptions/plan'), 503, 'payment_chain_unavailable');
      } finally {
        await proxy.restore();
      }
      const back = await renew(user, { payment: { txHash } }, { app: proxied, idempotencyKey: key });
      expect(back.status).toBe(200);
      expect((await api(proxied).get('/subscriptions/plan')).body.erc20.symbol).toBe('TUSD');
    });

    it('fails closed when nothing listens at CHAIN_RPC_URL', async () => {
      const closed = await startPaidProcess({ CHAIN_RPC_URL: `http://127.0.0.1:${await freePort()}` });
      apps.push(closed);
      const user = await payer();
      const txHash = await token.transfer(user.address, receiver, PRICE);
      expectRefused(
        await renew(user, { payment: { txHash } }, { app: closed }),
        503,
        'payment_chain_unavailable',
      );
      await expectNothingRecorded(user);
    });

    it('refuses to credit when the endpoint serves another chain than PAYMENT_CHAIN_ID', async () => {
      const elsewhere = await startPaidProcess({ PAYMENT_CHAIN_ID: String(chain.chainId + 1) });
      apps.push(elsewhere);
      const user = await payer();
      const txHash = await token.transfer(user.address, receiver, PRICE);
      expectRefused(
        await renew(user, { payment: { txHash } }, { app: elsewhere }),
        503,
        'payment_chain_mismatch',
      );
      await expectNothingRecorded(user);
    });
  });
});

describe('payments behind renew: free and operator', () => {
  const operatorWallet = newWallet();
  let free: TestApp;
  let billed: Instance;
  let operator: WalletSession;

  beforeAll(async () => {
    free = await startTestApp({ env: { WEBHOOK_WORKERS: 'false' } });
    // A second configuration runs as a process of its own (one passport registry per process).
    const service = await startServiceProcess(free.databaseUrl, {
      PAYMENT_GATEWAY: 'operator',
      OPERATOR_ADDRESSES: operatorWallet.address,
      WEBHOOK_WORKERS: 'false',
    });
    billed = { url: service.url, close: async () => void (await service.kill()) };
    operator = await login(billed.url, operatorWallet);
  });
  afterAll(async () => {
    await billed?.close();
    await free?.close();
  });

  it('free (the default outside production): renews without paying and records a zero payment', async () => {
    const api = http(free.url);
    expect((await api.get('/subscriptions/plan')).body).toEqual({
      gateway: 'free',
      periodSeconds: 2_592_000,
      erc20: null,
      // Automatic renewal under `free`: zero payments, no chain.
      autoRenew: {
        gateway: 'free',
        chainId: null,
        charger: null,
        token: null,
        payee: null,
        amount: '0',
        periodSeconds: 2_592_000,
      },
    });
    const user = await login(free.url);
    const renewed = await api.post('/subscriptions/renew', { token: user.token, body: {} });
    expect(renewed.status).toBe(200);
    const [entry] = (await api.get(`/subscriptions/history?address=${user.address}`, { token: user.token }))
      .body;
    expect(entry.payment).toEqual({
      gateway: 'free',
      amount: '0',
      chainId: null,
      token: null,
      payer: null,
      txHash: null,
      logIndex: null,
    });
  });

  it('free: refuses a payment it would ignore', async () => {
    const user = await login(free.url);
    const response = await http(free.url).post('/subscriptions/renew', {
      token: user.token,
      body: { payment: { txHash: randomHash() } },
    });
    expectRefused(response, 400, 'payment_not_expected');
    expect(response.body.details).toEqual({ code: 'payment_not_expected', gateway: 'free' });
  });

  it('operator: a wallet renewing itself is refused with renewal_operator_only', async () => {
    const api = http(billed.url);
    expect((await api.get('/subscriptions/plan')).body).toMatchObject({ gateway: 'operator', erc20: null });
    const user = await login(billed.url);
    const response = await api.post('/subscriptions/renew', { token: user.token, body: {} });
    expectRefused(response, 403, 'renewal_operator_only');
    expect(response.body.details).toEqual({
      code: 'renewal_operator_only',
      gateway: 'operator',
      address: user.address,
    });
    const status = await api.get(`/subscriptions/status?address=${user.address}`, { token: user.token });
    expect(status.body.status).toBe('none');
  });

  it('operator: an operator and a key it created renew any address', async () => {
    const api = http(billed.url);
    const customer = await login(billed.url);
    const bySession = await api.post('/subscriptions/renew', {
      token: operator.token,
      body: { address: customer.address },
    });
    expect(bySession.status).toBe(200);

    const created = await api.post('/api-keys', {
      token: operator.token,
      body: { label: 'billing', scopes: ['SUBSCRIPTIONS_MANAGE'] },
    });
    const byKey = await api.post('/subscriptions/renew', {
      token: created.body.key,
      body: { address: customer.address },
    });
    expect(byKey.status).toBe(200);
    expect(ms(byKey.body.currentPeriodEnd) - ms(bySession.body.currentPeriodEnd)).toBe(2_592_000_000);
    const history = await api.get(`/subscriptions/history?address=${customer.address}`, {
      token: customer.token,
    });
    expect(history.body.map((entry: { payment: { gateway: string } }) => entry.payment.gateway)).toEqual([
      'operator',
      'operator',
    ]);

    // A key the customer created is still the customer's own credential: refused.
    const own = await api.post('/api-keys', {
      token: customer.token,
      body: { label: 'mine', scopes: ['SUBSCRIPTIONS_MANAGE'] },
    });
    expectRefused(
      await api.post('/subscriptions/renew', { token: own.body.key, body: {} }),
      403,
      'renewal_operator_only',
    );
  });
});
