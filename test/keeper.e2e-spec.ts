import pg from 'pg';
import {
  type Abi,
  type Address,
  createPublicClient,
  getAddress,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  toHex,
} from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { autoRenewChainClient } from '../src/auto-renew/chain-client.js';
import type { ChargeOutcome, DueCharge } from '../src/auto-renew/charge-executor.js';
import {
  Erc20ChargeExecutor,
  type Erc20ChargeExecutorOptions,
} from '../src/auto-renew/keeper/erc20-charge-executor.js';
import { KeeperRepository } from '../src/auto-renew/keeper/keeper.repository.js';
import { chargerAbi, type Mandate, mandateHash, mandateTypedData } from '../src/auto-renew/mandate.js';
import { Database } from '../src/database/database.service.js';
import { DatabaseAvailability } from '../src/database/database-availability.js';
import { runMigrations } from '../src/database/migrate.js';
import { startTestChain, type TestChain, type TestToken } from './utils/evm.js';
import { type RpcProxy, startRpcProxy } from './utils/rpc-proxy.js';
import { truncateAll, workerDatabaseUrl } from './utils/test-database.js';
import { CHARGER_ARTIFACT, transfersFrom } from './utils/charger-chain.js';

/** 30 days. */
const PERIOD = 2_592_000n;
/** 5 TST (6 decimals). */
const AMOUNT = 5_000_000n;

let saltCounter = 0;
const nextSalt = (): Hex => keccak256(toHex(`keeper-test-${saltCounter++}`));

/** The keeper against PostgreSQL and the in-process chain, behind a JSON-RPC proxy that can fail. */
describe('the keeper (erc20 ChargeExecutor)', () => {
  let pool: pg.Pool;
  let db: Database;
  let chain: TestChain;
  let token: TestToken;
  let charger: Address;
  let proxy: RpcProxy;
  let client: PublicClient;
  let keeperKey: Hex;
  const payee = getAddress(privateKeyToAccount(generatePrivateKey()).address);

  const executor = ({
    // Generous: with other suites beside it, tevm can take seconds to answer.
    rpcTimeoutMs = 10_000,
    ...options
  }: Partial<Erc20ChargeExecutorOptions> & { rpcTimeoutMs?: number } = {}): Erc20ChargeExecutor =>
    new Erc20ChargeExecutor(
      {
        client: autoRenewChainClient(proxy.url, rpcTimeoutMs),
        chainId: chain.chainId,
        charger,
        privateKey: keeperKey,
        confirmations: 1,
        replaceAfterSeconds: 180,
        receiptWaitMs: 5_000,
        pollMs: 50,
        ...options,
      },
      new KeeperRepository(db),
    );

  /** A funded payer that allowed the charger `allowance`, and its signed mandate starting `startIn` from now. */
  const due = async ({
    balance = 100n * AMOUNT,
    allowance = 100n * AMOUNT,
    startIn = 0n,
    periodIndex = 0n,
  }: { balance?: bigint; allowance?: bigint; startIn?: bigint; periodIndex?: bigint } = {}): Promise<
    DueCharge & { payer: PrivateKeyAccount }
  > => {
    const payer = privateKeyToAccount(generatePrivateKey());
    if (balance > 0n) await token.mint(payer.address, balance);
    if (allowance > 0n) await token.approve(payer.address, charger, allowance);
    const mandate: Mandate = {
      payer: payer.address,
      token: token.address,
      payee,
      amount: AMOUNT,
      periodSeconds: PERIOD,
      start: (await chain.now()) + startIn,
      periods: 3n,
      salt: nextSalt(),
    };
    const signature = await payer.signTypedData(mandateTypedData(mandate, chain.chainId, charger));
    return {
      payer,
      mandate,
      signature,
      mandateHash: mandateHash(mandate, chain.chainId, charger),
      periodIndex,
    };
  };

  /** Every token transfer the payer made (all to the payee: nothing else moves its tokens here). */
  const transfers = (payer: Address) => transfersFrom(client, token.address, payer);

  const row = async (charge: DueCharge) =>
    (
      await pool.query<{
        state: string;
        nonce: string | null;
        tx_hash: string | null;
        replaced_tx_hashes: string[];
      }>(`SELECT * FROM keeper_charges WHERE mandate_hash = $1 AND period_index = $2`, [
        charge.mandateHash.toLowerCase(),
        charge.periodIndex.toString(),
      ])
    ).rows[0];

  /** The outcome must be `charged` with the one transfer the payer made, as the chain logged it. */
  const expectChargedOnce = async (
    outcome: ChargeOutcome,
    charge: DueCharge & { payer: PrivateKeyAccount },
  ) => {
    const logs = await transfers(charge.payer.address);
    expect(logs).toHaveLength(1);
    const [log] = logs;
    expect(log!.args).toEqual({ from: charge.payer.address, to: payee, value: AMOUNT });
    expect(outcome).toEqual({
      kind: 'charged',
      amountMinor: AMOUNT,
      transfer: {
        chainId: chain.chainId,
        token: token.address.toLowerCase(),
        payer: charge.payer.address.toLowerCase(),
        txHash: log!.transactionHash,
        logIndex: log!.logIndex,
      },
    });
  };

  beforeAll(async () => {
    const url = await workerDatabaseUrl();
    await runMigrations(url);
    pool = new pg.Pool({ connectionString: url, max: 8 });
    await truncateAll(url);
    db = new Database(pool, new DatabaseAvailability());
    chain = await startTestChain();
    token = await chain.deployToken('Test Token', 'TST', 6);
    charger = await chain.deployContract(CHARGER_ARTIFACT);
    proxy = await startRpcProxy(chain.rpcUrl);
    client = createPublicClient({ transport: http(chain.rpcUrl), cacheTime: 0 });
  });
  beforeEach(async () => {
    proxy.fault('none');
    proxy.dropSends(false);
    // A key of its own per test: nonces start at 0 and no test waits on another's transactions.
    keeperKey = generatePrivateKey();
    await chain.fund(privateKeyToAccount(keeperKey).address);
  });
  afterAll(async () => {
    await proxy?.close();
    await chain?.stop();
    await pool?.end();
  });

  it('charges a due period and returns the token transfer', async () => {
    const charge = await due();
    const outcome = await executor().charge(charge);
    await expectChargedOnce(outcome, charge);
    expect(await token.balanceOf(charge.payer.address)).toBe(99n * AMOUNT);
    expect(await row(charge)).toMatchObject({ state: 'confirmed', nonce: '0' });
  });

  it('charges a period once: asked again (by another executor too) it reports the first transfer', async () => {
    const charge = await due();
    const first = await executor().charge(charge);
    await expectChargedOnce(first, charge);
    expect(await executor().charge(charge)).toEqual(first);
    // Without the keeper's own record (charged by someone else, or the table restored from an old backup), the
    // contract refuses the second charge and the keeper reports the charge it finds on chain.
    await pool.query(`DELETE FROM keeper_charges WHERE mandate_hash = $1`, [
      charge.mandateHash.toLowerCase(),
    ]);
    expect(await executor().charge(charge)).toEqual(first);
    await expectChargedOnce(first, charge);
  });

  describe('refusals, with what a person can act on', () => {
    it.each([
      [
        'insufficient allowance',
        { allowance: 2_000_000n },
        'insufficient_allowance',
        'allowance is 2 TST, the period costs 5 TST: approve the charging contract for at least 5 TST, then retry',
        true,
      ],
      [
        'insufficient balance',
        { balance: 2_500_000n },
        'insufficient_balance',
        'balance is 2.5 TST, the period costs 5 TST: add at least 2.5 TST to the wallet, then retry',
        true,
      ],
      [
        'zero allowance',
        { allowance: 0n },
        'insufficient_allowance',
        'allowance is 0 TST, the period costs 5 TST: approve the charging contract for at least 5 TST, then retry',
        true,
      ],
      [
        'a period past the end',
        { periodIndex: 3n },
        'mandate_ended',
        'the authorization covers 3 periods (0 to 2); period 3 is past its end: sign a new one to go on renewing automatically',
        false,
      ],
    ] as const)('%s', async (_label, terms, failure, detail, retryable) => {
      const charge = await due(terms);
      expect(await executor().charge(charge)).toEqual({ kind: 'failed', failure, detail, retryable });
      expect(await transfers(charge.payer.address)).toEqual([]);
      expect(await row(charge)).toBeUndefined();
    });

    it('a period not started yet, with the moment it can be charged', async () => {
      const charge = await due({ startIn: 86_400n });
      const startsAt = new Date(Number(charge.mandate.start) * 1000).toISOString();
      expect(await executor().charge(charge)).toEqual({
        kind: 'failed',
        failure: 'period_not_started',
        detail: `period 0 can be charged from ${startsAt}`,
        retryable: true,
      });
      expect(await transfers(charge.payer.address)).toEqual([]);
    });

    it('a revoked mandate', async () => {
      const charge = await due();
      await chain.sendAs(charge.payer.address, charger, chargerAbi as Abi, 'revoke', [charge.mandateHash]);
      expect(await executor().charge(charge)).toEqual({
        kind: 'failed',
        failure: 'mandate_revoked',
        detail: 'the payer revoked the authorization: sign a new one to renew automatically again',
        retryable: false,
      });
      expect(await transfers(charge.payer.address)).toEqual([]);
    });

    it('a shortfall fixed by the payer is charged on the next attempt', async () => {
      const charge = await due({ allowance: 2_000_000n });
      expect(await executor().charge(charge)).toMatchObject({
        kind: 'failed',
        failure: 'insufficient_allowance',
      });
      await token.approve(charge.payer.address, charger, AMOUNT);
      await expectChargedOnce(await executor().charge(charge), charge);
    });
  });

  describe('exactly once', () => {
    it('a keeper stopped after sending: a new executor finds the transaction and reports it, one transfer', async () => {
      const charge = await due();
      proxy.refuseAfterNextSend();
      // The charge is broadcast, then the chain is gone for this keeper before any receipt: as if it stopped.
      expect(await executor().charge(charge)).toMatchObject({ kind: 'failed', failure: 'chain_unavailable' });
      expect(await row(charge)).toMatchObject({ state: 'sent', nonce: '0' });
      proxy.fault('none');
      // Nothing of the first executor is kept in memory: a new one reconciles from the table and the chain.
      await expectChargedOnce(await executor().charge(charge), charge);
      expect(await row(charge)).toMatchObject({ state: 'confirmed' });
    });

    it('a keeper stopped after recording, before the node got it: the recorded transaction is sent, once', async () => {
      const charge = await due();
      proxy.dropSends(true);
      expect(await executor({ receiptWaitMs: 0 }).charge(charge)).toEqual({ kind: 'pending' });
      const recorded = await row(charge);
      expect(recorded).toMatchObject({ state: 'sent', nonce: '0' });
      expect(await transfers(charge.payer.address)).toEqual([]);
      proxy.dropSends(false);
      const outcome = await executor().charge(charge);
      await expectChargedOnce(outcome, charge);
      // The very transaction recorded, not a second one.
      expect(outcome).toMatchObject({ transfer: { txHash: recorded!.tx_hash } });
    });

    it('two executors asked for the same charge at once send one transaction', async () => {
      const charge = await due();
      const [a, b] = await Promise.all([executor().charge(charge), executor().charge(charge)]);
      const outcomes = [a, b].map((outcome) => outcome.kind).sort();
      // The one that lost the claim reports pending (or the charge, had the winner finished first).
      expect(['charged,charged', 'charged,pending']).toContain(outcomes.join(','));
      const charged = [a, b].find((outcome) => outcome.kind === 'charged')!;
      await expectChargedOnce(charged, charge);
      expect(await executor().charge(charge)).toEqual(charged);
    });

    it('a transaction not mined in time is replaced with the same nonce and a higher fee, not duplicated', async () => {
      const charge = await due();
      proxy.dropSends(true);
      expect(await executor({ receiptWaitMs: 0 }).charge(charge)).toEqual({ kind: 'pending' });
      const stuck = (
        await pool.query(`SELECT * FROM keeper_charges WHERE mandate_hash = $1`, [
          charge.mandateHash.toLowerCase(),
        ])
      ).rows[0] as {
        tx_hash: string;
        nonce: string;
        max_fee_per_gas: string;
        max_priority_fee_per_gas: string;
      };
      // The replacement delay has passed (the row's clock, not the test's, is moved).
      await pool.query(
        `UPDATE keeper_charges SET sent_at = now() - interval '1 hour' WHERE mandate_hash = $1`,
        [charge.mandateHash.toLowerCase()],
      );
      proxy.dropSends(false);
      const outcome = await executor().charge(charge);
      await expectChargedOnce(outcome, charge);
      const replaced = (
        await pool.query(`SELECT * FROM keeper_charges WHERE mandate_hash = $1`, [
          charge.mandateHash.toLowerCase(),
        ])
      ).rows[0] as typeof stuck & { replaced_tx_hashes: string[]; state: string };
      expect(replaced).toMatchObject({
        state: 'confirmed',
        nonce: stuck.nonce,
        replaced_tx_hashes: [stuck.tx_hash],
      });
      expect(outcome).toMatchObject({ transfer: { txHash: replaced.tx_hash } });
      expect(replaced.tx_hash).not.toBe(stuck.tx_hash);
      const mined = await client.getTransaction({ hash: replaced.tx_hash as Hex });
      expect(mined.nonce).toBe(Number(stuck.nonce));
      expect(mined.maxFeePerGas!).toBeGreaterThan(BigInt(stuck.max_fee_per_gas));
      expect(mined.maxPriorityFeePerGas!).toBeGreaterThan(BigInt(stuck.max_priority_fee_per_gas));
    });

    it('two executors sharing one key take nonces without gaps or collisions', async () => {
      const charges = [];
      for (let i = 0; i < 4; i++) charges.push(await due());
      const [a, b] = [executor({ receiptWaitMs: 0 }), executor({ receiptWaitMs: 0 })];
      // Signed and recorded at the same time by both; held back from the chain, since the in-process EVM cannot
      // mine concurrent arrivals (a node would queue them by nonce).
      proxy.dropSends(true);
      const sent = await Promise.all(charges.map((charge, i) => (i % 2 === 0 ? a : b).charge(charge)));
      expect(sent).toEqual(charges.map(() => ({ kind: 'pending' })));
      const nonces = await Promise.all(charges.map(async (charge) => Number((await row(charge))!.nonce)));
      expect([...nonces].sort()).toEqual([0, 1, 2, 3]);
      proxy.dropSends(false);
      // Each asked again in nonce order: the recorded transactions are broadcast and mined, one transfer each.
      for (const nonce of [0, 1, 2, 3]) {
        const charge = charges[nonces.indexOf(nonce)]!;
        await expectChargedOnce(await executor().charge(charge), charge);
      }
      expect(await client.getTransactionCount({ address: privateKeyToAccount(keeperKey).address })).toBe(4);
    });

    it('one executor asked for several charges at once: consecutive nonces, each mined, one transfer each', async () => {
      const charges = [];
      for (let i = 0; i < 4; i++) charges.push(await due());
      // As the renewal sweep asks with AUTO_RENEW_CONCURRENCY.
      const keeper = executor();
      const outcomes = await Promise.all(charges.map((charge) => keeper.charge(charge)));
      for (const [i, charge] of charges.entries()) await expectChargedOnce(outcomes[i]!, charge);
      const nonces = await Promise.all(charges.map(async (charge) => Number((await row(charge))!.nonce)));
      expect([...nonces].sort()).toEqual([0, 1, 2, 3]);
      expect(await client.getTransactionCount({ address: privateKeyToAccount(keeperKey).address })).toBe(4);
    });

    it('takes up the chain nonce when the key was used elsewhere', async () => {
      const keeper = privateKeyToAccount(keeperKey);
      await executor().charge(await due());
      // Another program spends nonce 1 with the same key.
      const wallet = await import('viem').then(({ createWalletClient, defineChain }) =>
        createWalletClient({
          account: keeper,
          chain: defineChain({
            id: chain.chainId,
            name: 'tevm',
            nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
            rpcUrls: { default: { http: [chain.rpcUrl] } },
          }),
          transport: http(chain.rpcUrl),
        }),
      );
      await wallet.sendTransaction({ to: payee, value: 1n, gas: 21_000n });
      const charge = await due();
      await expectChargedOnce(await executor().charge(charge), charge);
      expect(await row(charge)).toMatchObject({ nonce: '2' });
    });
  });

  describe('the chain unreachable', () => {
    it.each([
      ['refuses connections', 'refuse'],
      ['answers errors', 'error'],
      ['hangs', 'hang'],
    ] as const)(
      'when it %s: chain_unavailable, nothing sent; charged once it is back',
      async (_label, fault) => {
        const charge = await due();
        proxy.fault(fault);
        // A short timeout, for the hanging endpoint's sake.
        const down = await executor({ rpcTimeoutMs: 500 }).charge(charge);
        expect(down).toMatchObject({ kind: 'failed', failure: 'chain_unavailable', retryable: true });
        expect((down as { detail: string }).detail).toMatch(/^the chain's endpoint did not answer/);
        expect(await row(charge)).toBeUndefined();
        proxy.fault('none');
        await expectChargedOnce(await executor().charge(charge), charge);
      },
    );
  });

  it('never puts the key in an answer or an error', async () => {
    const charge = await due({ allowance: 0n });
    proxy.fault('refuse');
    const outcomes = [await executor({ rpcTimeoutMs: 500 }).charge(charge)];
    proxy.fault('none');
    outcomes.push(await executor().charge(charge));
    const text = JSON.stringify(outcomes, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    expect(text).not.toContain(keeperKey.slice(2));
  });
});
