import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeErrorResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  keccak256,
  parseEventLogs,
  type PublicClient,
  toHex,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import {
  chargerAbi,
  chargeRefusals,
  type Mandate,
  mandateHash,
  mandateTypedData,
  periodStart,
} from '../src/auto-renew/mandate.js';
import { startTestChain, type TestChain, type TestToken } from './utils/evm.js';

const artifact = JSON.parse(readFileSync(new URL('../contracts/compiled.json', import.meta.url), 'utf8')) as {
  TollgateCharger: { abi: Abi; bytecode: Hex };
};
const fixtures = JSON.parse(
  readFileSync(new URL('./fixtures/contracts/compiled.json', import.meta.url), 'utf8'),
) as { TestToken: { abi: Abi }; ReentrantToken: { abi: Abi; bytecode: Hex } };

/** 30 days. */
const PERIOD = 2_592_000n;
/** 5 tokens of 6 decimals. */
const AMOUNT = 5_000_000n;
/** secp256k1's group order: `n - s` is the high-s twin of a signature. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/**
 * The signed charges' gas limit: tevm estimates the gas a call used, which leaves too little for the 63/64 a call
 * forwards to the token (and an estimate would refuse a charge the test sends anyway).
 */
const CHARGE_GAS = 1_000_000n;

const encodeCharge = (mandate: Mandate, signature: Hex, index: bigint): Hex =>
  encodeFunctionData({ abi: chargerAbi, functionName: 'charge', args: [mandate, signature, index] });
const encodeErrorSelector = (errorName: 'AlreadyCharged'): Hex =>
  encodeErrorResult({ abi: chargerAbi, errorName });

let saltCounter = 0;
const nextSalt = (): Hex => keccak256(toHex(`charger-test-${saltCounter++}`));

/** The custom error a simulated (eth_call) charge reverts with, as the keeper will see it. */
async function refusal(
  client: PublicClient,
  charger: Address,
  mandate: Mandate,
  signature: Hex,
  index: bigint,
): Promise<{ errorName: string; args: readonly unknown[] }> {
  try {
    await client.simulateContract({
      address: charger,
      abi: chargerAbi,
      functionName: 'charge',
      args: [mandate, signature, index],
    });
  } catch (error) {
    const reverted =
      error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (!(reverted instanceof ContractFunctionRevertedError) || !reverted.data)
      throw new Error(`charge failed without a custom error: ${String(error)}`, { cause: error });
    return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
  }
  throw new Error('charge would have succeeded');
}

describe('the charging contract on an in-process chain', () => {
  let chain: TestChain;
  let token: TestToken;
  let charger: Address;
  let publicClient: PublicClient;
  let keeper: WalletClient;
  let keeperAccount: PrivateKeyAccount;
  const payee = getAddress(privateKeyToAccount(generatePrivateKey()).address);

  /** A mandate of `payer` starting now (or `startIn` seconds from now), signed by `signer` (default: the payer). */
  const newMandate = async (
    payer: PrivateKeyAccount,
    overrides: Partial<Mandate> & { startIn?: bigint } = {},
  ): Promise<{ mandate: Mandate; signature: Hex; hash: Hex }> => {
    const { startIn = 0n, ...terms } = overrides;
    const mandate: Mandate = {
      payer: payer.address,
      token: token.address,
      payee,
      amount: AMOUNT,
      periodSeconds: PERIOD,
      start: (await chain.now()) + startIn,
      periods: 3n,
      salt: nextSalt(),
      ...terms,
    };
    const signature = await payer.signTypedData(mandateTypedData(mandate, chain.chainId, charger));
    return { mandate, signature, hash: mandateHash(mandate, chain.chainId, charger) };
  };

  /** A funded payer that allowed the charger `allowance`. */
  const newPayer = async (balance = 100n * AMOUNT, allowance = 100n * AMOUNT): Promise<PrivateKeyAccount> => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await token.mint(payer.address, balance);
    if (allowance > 0n) await token.approve(payer.address, charger, allowance);
    return payer;
  };

  /** The keeper's charge as a signed transaction with a fixed gas limit (no estimate to refuse it); its receipt. */
  const sendCharge = async (mandate: Mandate, signature: Hex, index: bigint) => {
    const hash = await keeper.writeContract({
      account: keeperAccount,
      chain: keeper.chain,
      address: charger,
      abi: chargerAbi,
      functionName: 'charge',
      args: [mandate, signature, index],
      gas: CHARGE_GAS,
    });
    return publicClient.waitForTransactionReceipt({ hash });
  };

  /** A charge that must succeed; resolves to the Charged log of the mined receipt. */
  const charge = async (mandate: Mandate, signature: Hex, index: bigint) => {
    const receipt = await sendCharge(mandate, signature, index);
    expect(receipt.status).toBe('success');
    const [charged, ...more] = parseEventLogs({ abi: chargerAbi, eventName: 'Charged', logs: receipt.logs });
    expect(more).toEqual([]);
    return charged;
  };

  const refused = (mandate: Mandate, signature: Hex, index: bigint) =>
    refusal(publicClient, charger, mandate, signature, index);

  beforeAll(async () => {
    chain = await startTestChain();
    token = await chain.deployToken('Test USD', 'TUSD', 6);
    charger = await chain.deployContract(artifact.TollgateCharger);
    const viemChain = defineChain({
      id: chain.chainId,
      name: 'tevm',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [chain.rpcUrl] } },
    });
    publicClient = createPublicClient({
      chain: viemChain,
      transport: http(chain.rpcUrl),
      pollingInterval: 50,
    });
    keeperAccount = privateKeyToAccount(generatePrivateKey());
    await chain.fund(keeperAccount.address);
    keeper = createWalletClient({ account: keeperAccount, chain: viemChain, transport: http(chain.rpcUrl) });
  });

  afterAll(async () => {
    await chain?.stop();
  });

  it('hashes a mandate as the service does', async () => {
    const payer = await newPayer();
    const { mandate, hash } = await newMandate(payer);
    const onChain = await publicClient.readContract({
      address: charger,
      abi: chargerAbi,
      functionName: 'hashMandate',
      args: [mandate],
    });
    expect(onChain).toBe(hash);
  });

  it('charges three periods in turn, each once, each from its start, and none past the last', async () => {
    const payer = await newPayer();
    const { mandate, signature, hash } = await newMandate(payer, { startIn: 1_000n });

    expect(await refused(mandate, signature, 0n)).toEqual({
      errorName: 'PeriodNotStarted',
      args: [periodStart(mandate, 0n)],
    });
    await chain.increaseTime(1_000);

    for (const index of [0n, 1n, 2n]) {
      if (index > 0n) {
        // The next period is refused until it begins, even one block before.
        expect((await refused(mandate, signature, index)).errorName).toBe('PeriodNotStarted');
        await chain.increaseTime(Number(PERIOD));
      }
      const before = await token.balanceOf(payee);
      const event = await charge(mandate, signature, index);
      expect(event.args).toEqual({
        mandateHash: hash,
        periodIndex: index,
        payer: payer.address,
        payee,
        amount: AMOUNT,
      });
      expect((await token.balanceOf(payee)) - before).toBe(AMOUNT);
      expect(
        await publicClient.readContract({
          address: charger,
          abi: chargerAbi,
          functionName: 'charged',
          args: [hash, index],
        }),
      ).toBe(true);
      expect(await refused(mandate, signature, index)).toEqual({ errorName: 'AlreadyCharged', args: [] });
    }
    expect(await token.balanceOf(payer.address)).toBe(97n * AMOUNT);

    await chain.increaseTime(Number(PERIOD) * 5);
    expect(await refused(mandate, signature, 3n)).toEqual({ errorName: 'MandateEnded', args: [3n] });
    expect(await token.balanceOf(charger)).toBe(0n);
  });

  it('refuses a second charge of a period even when the transaction is sent anyway', async () => {
    const payer = await newPayer();
    const { mandate, signature } = await newMandate(payer);
    await charge(mandate, signature, 0n);
    const before = await token.balanceOf(payer.address);

    expect((await sendCharge(mandate, signature, 0n)).status).toBe('reverted');
    expect(await token.balanceOf(payer.address)).toBe(before);
  });

  it('charges only the signed amount, to the signed payee, of the signed payer', async () => {
    const payer = await newPayer();
    const { mandate, signature } = await newMandate(payer);
    const stranger = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const otherPayer = await newPayer();

    for (const tampered of [
      { ...mandate, amount: mandate.amount + 1n },
      { ...mandate, payee: stranger },
      { ...mandate, payer: otherPayer.address },
      { ...mandate, periodSeconds: 1n },
      { ...mandate, start: mandate.start - PERIOD },
      { ...mandate, periods: 4n },
    ])
      expect(await refused(tampered, signature, 0n)).toEqual({ errorName: 'BadSignature', args: [] });

    // Signed by someone other than the payer.
    const forged = await newMandate(otherPayer, { payer: payer.address });
    expect((await refused(forged.mandate, forged.signature, 0n)).errorName).toBe('BadSignature');

    // The malleable twin of a valid signature (high s, flipped v) is not accepted either.
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = Number.parseInt(signature.slice(130, 132), 16);
    const twin =
      `${signature.slice(0, 66)}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
    expect((await refused(mandate, twin, 0n)).errorName).toBe('BadSignature');
    expect((await refused(mandate, '0x', 0n)).errorName).toBe('BadSignature');

    await charge(mandate, signature, 0n);
  });

  it('stops charging once the payer revokes, and only the payer can revoke', async () => {
    const payer = await newPayer();
    const { mandate, signature, hash } = await newMandate(payer);
    await charge(mandate, signature, 0n);

    const stranger = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    await chain.sendAs(stranger, charger, chargerAbi, 'revoke', [hash]);
    await chain.increaseTime(Number(PERIOD));
    await charge(mandate, signature, 1n);

    const revocation = await chain.sendAs(payer.address, charger, chargerAbi, 'revoke', [hash]);
    const { logs } = await publicClient.getTransactionReceipt({ hash: revocation });
    expect(parseEventLogs({ abi: chargerAbi, eventName: 'Revoked', logs }).map((log) => log.args)).toEqual([
      { mandateHash: hash, payer: payer.address },
    ]);
    await chain.increaseTime(Number(PERIOD));
    expect(await refused(mandate, signature, 2n)).toEqual({ errorName: 'MandateRevoked', args: [] });
    expect(
      await publicClient.readContract({
        address: charger,
        abi: chargerAbi,
        functionName: 'revoked',
        args: [payer.address, hash],
      }),
    ).toBe(true);
  });

  it('says whether the allowance or the balance falls short, with the figures', async () => {
    const noAllowance = await newPayer(100n * AMOUNT, 0n);
    const first = await newMandate(noAllowance);
    const shortAllowance = await refused(first.mandate, first.signature, 0n);
    expect(shortAllowance).toEqual({ errorName: 'InsufficientAllowance', args: [0n, AMOUNT] });
    expect(chargeRefusals[shortAllowance.errorName as keyof typeof chargeRefusals]).toBe(
      'insufficient_allowance',
    );

    await token.approve(noAllowance.address, charger, 2n * AMOUNT);
    await charge(first.mandate, first.signature, 0n);

    const poor = await newPayer(AMOUNT - 1n);
    const second = await newMandate(poor);
    expect(await refused(second.mandate, second.signature, 0n)).toEqual({
      errorName: 'InsufficientBalance',
      args: [AMOUNT - 1n, AMOUNT],
    });
  });

  it('charges a smart-wallet payer through ERC-1271', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await chain.deployWallet(owner.address);
    await token.mint(wallet, 10n * AMOUNT);
    await token.approve(wallet, charger, 10n * AMOUNT);
    const mandate: Mandate = {
      payer: wallet,
      token: token.address,
      payee,
      amount: AMOUNT,
      periodSeconds: PERIOD,
      start: await chain.now(),
      periods: 12n,
      salt: nextSalt(),
    };
    const hash = mandateHash(mandate, chain.chainId, charger);

    const intruder = privateKeyToAccount(generatePrivateKey());
    expect((await refused(mandate, await intruder.sign({ hash }), 0n)).errorName).toBe('BadSignature');

    // The test wallet approves whatever hash its owner signed (the verifier's digest, as here).
    const event = await charge(mandate, await owner.sign({ hash }), 0n);
    expect(event.args).toMatchObject({ mandateHash: hash, payer: wallet, payee, amount: AMOUNT });
    expect(await token.balanceOf(wallet)).toBe(9n * AMOUNT);
  });

  it('charges after an EIP-2612 permit, with no transaction from the payer', async () => {
    const payer = await newPayer(10n * AMOUNT, 0n);
    const { mandate, signature } = await newMandate(payer);
    const deadline = (await chain.now()) + 3_600n;
    const permit = await payer.signTypedData({
      domain: { name: 'Test USD', version: '1', chainId: chain.chainId, verifyingContract: token.address },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: payer.address, spender: charger, value: 12n * AMOUNT, nonce: 0n, deadline },
    });
    const r = permit.slice(0, 66) as Hex;
    const s = `0x${permit.slice(66, 130)}` as Hex;
    const v = Number.parseInt(permit.slice(130, 132), 16);

    // The keeper submits the permit (and pays its gas), then charges.
    const permitted = await keeper.writeContract({
      account: keeperAccount,
      chain: keeper.chain,
      address: token.address,
      abi: fixtures.TestToken.abi,
      functionName: 'permit',
      args: [payer.address, charger, 12n * AMOUNT, deadline, v, r, s],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash: permitted })).status).toBe('success');
    await charge(mandate, signature, 0n);

    expect(await token.balanceOf(payer.address)).toBe(9n * AMOUNT);
    expect(await publicClient.getTransactionCount({ address: payer.address })).toBe(0);
    const read = (functionName: string, args: readonly unknown[]) =>
      publicClient.readContract({ address: token.address, abi: fixtures.TestToken.abi, functionName, args });
    expect(await read('allowance', [payer.address, charger])).toBe(11n * AMOUNT);
    expect(await read('nonces', [payer.address])).toBe(1n);
  });

  it('cannot be made to charge a period twice by a token that calls back into it', async () => {
    const reentrant = await chain.deployContract(fixtures.ReentrantToken);
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.sendAs(undefined, reentrant, fixtures.ReentrantToken.abi, 'mint', [
      payer.address,
      10n * AMOUNT,
    ]);
    await chain.sendAs(payer.address, reentrant, fixtures.ReentrantToken.abi, 'approve', [
      charger,
      10n * AMOUNT,
    ]);
    const { mandate, signature } = await newMandate(payer, { token: reentrant });
    const armed = await keeper.writeContract({
      account: keeperAccount,
      chain: keeper.chain,
      address: reentrant,
      abi: fixtures.ReentrantToken.abi,
      functionName: 'callBackOnTransfer',
      args: [charger, encodeCharge(mandate, signature, 0n)],
      // Storing the call takes a slot per 32 bytes.
      gas: 2_000_000n,
    });
    expect((await publicClient.waitForTransactionReceipt({ hash: armed })).status).toBe('success');

    const read = (functionName: string, args: readonly unknown[] = []) =>
      publicClient.readContract({ address: reentrant, abi: fixtures.ReentrantToken.abi, functionName, args });
    expect(await read('callBackTarget')).toBe(charger);
    await charge(mandate, signature, 0n);
    expect(await read('balanceOf', [payer.address])).toBe(9n * AMOUNT);
    // The nested charge of the same period was refused with AlreadyCharged.
    expect({
      callBacks: await read('callBacks'),
      succeeded: await read('lastCallBackSucceeded'),
      result: await read('lastCallBackResult'),
    }).toEqual({ callBacks: 1n, succeeded: false, result: encodeErrorSelector('AlreadyCharged') });
  });

  it('holds and accepts no funds', async () => {
    await expect(
      keeper.sendTransaction({
        account: keeperAccount,
        chain: keeper.chain,
        to: charger,
        value: 1n,
      }),
    ).rejects.toThrow();
    expect(await publicClient.getBalance({ address: charger })).toBe(0n);
  });
});
