import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type * as TevmMemoryClient from '@tevm/memory-client';
import type * as TevmServer from '@tevm/server';
import {
  type Abi,
  type Address,
  type BlockTag,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  hexToBytes,
  http,
  isHex,
  keccak256,
  parseAbiParameters,
  serializeErc6492Signature,
  toHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

interface CompiledFixtures {
  SmartWallet: CompiledContract;
  WalletFactory: CompiledContract;
  TestToken: CompiledContract;
  ResetFirstToken: CompiledContract;
}

/** An ERC-20 (test/fixtures/contracts/TestToken.sol) deployed on the test chain. */
export interface TestToken {
  address: Address;
  mint(to: Address, amount: bigint): Promise<void>;
  /** A mined `transfer` sent from `from` (impersonated: no key needed); returns its hash. */
  transfer(from: Address, to: Address, amount: bigint): Promise<Hex>;
  /** One mined transaction holding one Transfer log per recipient. */
  transferMany(from: Address, recipients: Array<{ to: Address; amount: bigint }>): Promise<Hex>;
  /** A mined transaction that calls `transfer` for more than the sender holds, and so reverts. */
  revertedTransfer(to: Address, amount: bigint): Promise<Hex>;
  balanceOf(owner: Address): Promise<bigint>;
  allowance(owner: Address, spender: Address): Promise<bigint>;
  /** A mined `approve` sent from `owner` (impersonated). */
  approve(owner: Address, spender: Address, amount: bigint): Promise<void>;
  /**
   * Each owner's allowance to `spender` written into the token's storage at once, without a transaction or an
   * `Approval` log: for setting up thousands of payers, where an `approve` each takes tevm minutes in all.
   */
  setAllowances(owners: readonly Address[], spender: Address, amount: bigint): Promise<void>;
}

export interface CounterfactualWallet {
  address: Address;
  /** Wraps an owner's signature as ERC-6492 so verifiers deploy the wallet inside their eth_call. */
  wrapSignature(innerSignature: Hex): Hex;
}

/** The settings of an app whose PAYMENT_GATEWAY=erc20 takes `price` (smallest unit) of `token` on `chain`. */
export function erc20PaymentEnv(
  chain: TestChain,
  token: TestToken,
  receiver: Address,
  price: bigint,
): Record<string, string> {
  return {
    PAYMENT_GATEWAY: 'erc20',
    PAYMENT_TOKEN_ADDRESS: token.address,
    PAYMENT_RECEIVER_ADDRESS: receiver,
    PAYMENT_PRICE_PER_PERIOD: price.toString(),
    PAYMENT_CHAIN_ID: String(chain.chainId),
    PAYMENT_CONFIRMATIONS: '1',
    CHAIN_RPC_URL: chain.rpcUrl,
    // Generous: with other suites running beside it, tevm can take seconds to answer.
    CHAIN_RPC_TIMEOUT_MS: '10000',
  };
}

export interface TestChain {
  rpcUrl: string;
  /** Deploys a SmartWallet owned by `owner` through the factory and returns its address. */
  deployWallet(owner: Address): Promise<Address>;
  counterfactualWallet(owner: Address, salt?: Hex): CounterfactualWallet;
  /** A TestToken; with `resetFirst`, one whose `approve` wants a nonzero allowance set to 0 first, as USDT's does. */
  deployToken(
    name: string,
    symbol: string,
    decimals: number,
    options?: { resetFirst?: boolean },
  ): Promise<TestToken>;
  chainId: number;
  /** Mines empty blocks (each transaction is mined in a block of its own). */
  mine(blocks: number): Promise<void>;
  /** Moves the chain's clock `seconds` forward (two blocks mined that far apart); later blocks never go back. */
  increaseTime(seconds: number): Promise<void>;
  /** The latest block's timestamp, unix seconds. */
  now(): Promise<bigint>;
  /** Gives `address` enough ether for gas. */
  fund(address: Address): Promise<void>;
  deployContract(contract: { abi: Abi; bytecode: Hex }, args?: readonly unknown[]): Promise<Address>;
  /**
   * A mined call of `functionName` on `to` sent from `from` (impersonated: no key needed; tevm's default sender when
   * undefined); returns its hash.
   */
  sendAs(
    from: Address | undefined,
    to: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
  ): Promise<Hex>;
  stop(): Promise<void>;
}

const compiled = JSON.parse(
  readFileSync(
    join(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/contracts/compiled.json'),
    'utf8',
  ),
) as CompiledFixtures;
const factoryAbi = compiled.WalletFactory.abi;

// tevm's ESM build cannot be linked here: its pinned @ethereumjs/trie 6.2.0 imports `isHexPrefixed`, which the
// installed @ethereumjs/util 9.1.0 no longer exports. The CommonJS build only fails if that helper is called
// (genesis-state loading, unused here), so tevm is loaded through require.
const require = createRequire(import.meta.url);
const { createMemoryClient } = require('@tevm/memory-client') as typeof TevmMemoryClient;
const { createHttpHandler } = require('@tevm/server') as typeof TevmServer;

type MemoryClient = ReturnType<typeof createMemoryClient>;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * tevm's JSON-RPC server, except for the answers this tevm version gets wrong, patched from the VM itself:
 * - a receipt carries its `status` (tevm only copies a byte-array status, and the VM stores a number, so every
 *   receipt would look neither succeeded nor reverted);
 * - a reverted `eth_call` or `eth_estimateGas` carries the revert data, as a node's `execution reverted` error
 *   does (tevm drops it, so a contract's custom error could not be decoded);
 * - a signed transaction is mined as it arrives, as impersonated ones are (tevm's auto-mining leaves it pending);
 * - `eth_getBlockByNumber` answers the block, without its transactions (tevm answers `{}`), so clients see the base
 *   fee and send EIP-1559 transactions (tevm fails to build the receipt of a legacy one);
 * - `eth_getLogs` over a range of numbered blocks: tevm reads a hex `fromBlock`/`toBlock` as a block hash (and
 *   answers "resource not found"), so the numbers are handed to it as the hashes of those blocks;
 * - `eth_estimateGas` answers a limit the transaction can run with: tevm answers the gas spent after refunds, which
 *   is too little for one that clears storage (an `approve` of 0, say: its refund comes only at the end), so the
 *   refund is added back (see {@link withGasBeforeRefunds}).
 */
function rpcHandler(client: MemoryClient): (request: IncomingMessage, response: ServerResponse) => void {
  const tevm = createHttpHandler(client);
  return (request, response) => {
    void readBody(request).then(async (read) => {
      const body = await withBlockHashes(client, read);
      const call = JSON.parse(body) as { method?: string; params?: unknown[] };
      const replay = Readable.from([body]) as unknown as IncomingMessage;
      const patch =
        call.method === 'eth_getTransactionReceipt'
          ? (text: string) => withStatus(client, text)
          : call.method === 'eth_call'
            ? (text: string) => withRevertData(client, call.params ?? [], text)
            : call.method === 'eth_estimateGas'
              ? async (text: string) =>
                  withGasBeforeRefunds(
                    client,
                    call.params ?? [],
                    await withRevertData(client, call.params ?? [], text),
                  )
              : call.method === 'eth_sendRawTransaction'
                ? (text: string) => minedAfter(client, text)
                : call.method === 'eth_getBlockByNumber'
                  ? (text: string) => withBlock(client, call.params ?? [], text)
                  : undefined;
      if (!patch) return tevm(replay, response);
      let statusCode = 200;
      let headers: Record<string, string> = {};
      const capture = {
        writeHead(code: number, head: Record<string, string>) {
          statusCode = code;
          headers = head;
          return capture;
        },
        end(text: string) {
          void patch(text).then((patched) => response.writeHead(statusCode, headers).end(patched));
        },
      };
      return tevm(replay, capture as unknown as ServerResponse);
    });
  };
}

async function withBlockHashes(client: MemoryClient, body: string): Promise<string> {
  const call = JSON.parse(body) as { method?: string; params?: Array<Record<string, unknown>> };
  const filter = call.params?.[0];
  if (call.method !== 'eth_getLogs' || !filter) return body;
  for (const key of ['fromBlock', 'toBlock'] as const) {
    const tag = filter[key];
    if (typeof tag !== 'string' || !isHex(tag) || tag.length > 18) continue;
    filter[key] = (await client.getBlock({ blockNumber: BigInt(tag) })).hash;
  }
  return JSON.stringify(call);
}

async function withBlock(client: MemoryClient, params: unknown[], text: string): Promise<string> {
  const answer = JSON.parse(text) as { result?: unknown };
  const [tag, full] = params as [Hex | BlockTag, boolean];
  if (full || answer.result === null) return text;
  const block = await client.getBlock(isHex(tag) ? { blockNumber: BigInt(tag) } : { blockTag: tag });
  answer.result = JSON.parse(
    JSON.stringify(block, (_key, value: unknown) => (typeof value === 'bigint' ? toHex(value) : value)),
  );
  return JSON.stringify(answer);
}

async function minedAfter(client: MemoryClient, text: string): Promise<string> {
  if (!(JSON.parse(text) as { error?: unknown }).error) await client.tevmMine();
  return text;
}

async function withRevertData(client: MemoryClient, params: unknown[], text: string): Promise<string> {
  const answer = JSON.parse(text) as { error?: { code: number; message: string; data?: unknown } };
  if (!answer.error) return text;
  const [request, blockTag] = params as [
    { from?: Address; to?: Address; data?: Hex; value?: Hex; gas?: Hex },
    (Hex | 'latest' | 'pending') | undefined,
  ];
  const replayed = await client.tevmCall({
    ...(request.from ? { from: request.from } : {}),
    ...(request.to ? { to: request.to } : {}),
    ...(request.data ? { data: request.data } : {}),
    ...(request.value ? { value: BigInt(request.value) } : {}),
    ...(request.gas ? { gas: BigInt(request.gas) } : {}),
    ...(blockTag && blockTag !== 'pending' ? { blockTag } : {}),
    throwOnFail: false,
  });
  const reverted = replayed.errors?.some((error) => error.message.startsWith('revert'));
  if (!reverted) return text;
  answer.error = { code: 3, message: 'execution reverted', data: replayed.rawData };
  return JSON.stringify(answer);
}

/**
 * A node answers the least gas limit the transaction succeeds with; tevm answers what it spends net of refunds.
 * Replayed, the call reports its execution gas before refunds: with the intrinsic gas (21 000, and 4 or 16 a byte of
 * calldata) that is what the transaction consumes before its refund, and 2 300 more keeps a last `SSTORE` above the
 * stipend it refuses to run within (EIP-2200). Calls without a refund, and those that create contracts, keep tevm's
 * answer.
 */
async function withGasBeforeRefunds(client: MemoryClient, params: unknown[], text: string): Promise<string> {
  const answer = JSON.parse(text) as { result?: Hex };
  const [request] = params as [{ from?: Address; to?: Address; data?: Hex; value?: Hex }];
  if (!answer.result || !request.to) return text;
  const replayed = await client.tevmCall({
    ...(request.from ? { from: request.from } : {}),
    to: request.to,
    ...(request.data ? { data: request.data } : {}),
    ...(request.value ? { value: BigInt(request.value) } : {}),
    throwOnFail: false,
  });
  const calldata = hexToBytes(request.data ?? '0x');
  const intrinsic = 21_000n + calldata.reduce((sum, byte) => sum + (byte === 0 ? 4n : 16n), 0n);
  const beforeRefunds = intrinsic + (replayed.executionGasUsed ?? 0n);
  // Without a refund tevm's answer suffices, and stays as it was.
  if (beforeRefunds <= BigInt(answer.result)) return text;
  answer.result = toHex(beforeRefunds + 2_300n);
  return JSON.stringify(answer);
}

async function withStatus(client: MemoryClient, text: string): Promise<string> {
  const answer = JSON.parse(text) as { result?: { transactionHash: Hex; status?: Hex } | null };
  if (!answer.result) return text;
  const receipts = await client.transport.tevm.getReceiptsManager();
  const found = await receipts.getReceiptByTxHash(hexToBytes(answer.result.transactionHash));
  const stored = found?.[0] as { status?: number } | undefined;
  if (stored?.status !== undefined) answer.result.status = stored.status === 1 ? '0x1' : '0x0';
  return JSON.stringify(answer);
}

/** Starts an in-process EVM on a free loopback port with WalletFactory deployed; blocks are mined per tx. */
export async function startTestChain(): Promise<TestChain> {
  const client = createMemoryClient({ miningConfig: { type: 'auto' }, loggingLevel: 'warn' });
  await client.tevmReady();

  const deployed = await client.tevmDeploy({
    abi: compiled.WalletFactory.abi,
    bytecode: compiled.WalletFactory.bytecode,
    createTransaction: true,
    throwOnFail: true,
  });
  const factory = deployed.createdAddress;
  if (!factory) throw new Error('WalletFactory deployment returned no address');

  const server = createHttpServer(rpcHandler(client));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let saltCounter = 0;
  // Distinct salts keep wallets of the same owner apart across calls within one chain.
  const nextSalt = (): Hex => keccak256(toHex(`tollgate-test-wallet-${saltCounter++}`));

  const rpcUrl = `http://127.0.0.1:${port}`;
  const chainId = await client.getChainId();
  const chain = defineChain({
    id: chainId,
    name: 'tevm',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const tokenAbi = compiled.TestToken.abi;

  let sent = 0;
  const sendAs = async (
    from: Address | undefined,
    to: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
    extraGas = 0n,
  ): Promise<Hex> => {
    // Gas for the impersonated sender (the base fee rises above zero once a signed transaction is mined).
    if (from !== undefined) await client.tevmSetAccount({ address: from, balance: 10n ** 18n });
    const result = await client.tevmContract({
      ...(from === undefined ? {} : { from }),
      to,
      abi,
      functionName,
      args: [...args],
      // tevm's impersonated transactions are unsigned, so their hash leaves the sender out: two senders making
      // the same call would share one hash. A gas limit of its own keeps each transaction's hash apart.
      gas: 300_000n + extraGas + BigInt(sent++),
      createTransaction: true,
      throwOnFail: true,
    });
    if (!result.txHash) throw new Error(`${functionName} was not mined`);
    return result.txHash;
  };

  const deployToken = async (
    name: string,
    symbol: string,
    decimals: number,
    options: { resetFirst?: boolean } = {},
  ): Promise<TestToken> => {
    const token = await client.tevmDeploy({
      abi: tokenAbi,
      bytecode: (options.resetFirst ? compiled.ResetFirstToken : compiled.TestToken).bytecode,
      args: [name, symbol, decimals],
      createTransaction: true,
      throwOnFail: true,
    });
    const address = token.createdAddress;
    if (!address) throw new Error('TestToken deployment returned no address');
    const send = (
      from: Address | undefined,
      functionName: string,
      args: unknown[],
      extraGas?: bigint,
    ): Promise<Hex> => sendAs(from, address, tokenAbi, functionName, args, extraGas);
    return {
      address,
      async mint(to, amount) {
        await send(undefined, 'mint', [to, amount]);
      },
      transfer: (from, to, amount) => send(from, 'transfer', [to, amount]),
      transferMany: (from, recipients) =>
        // A first balance of an address costs about 25 000 gas: past a dozen recipients, the base limit would
        // make the call run out of gas.
        send(
          from,
          'transferMany',
          [recipients.map((r) => r.to), recipients.map((r) => r.amount)],
          30_000n * BigInt(recipients.length),
        ),
      async revertedTransfer(to, amount) {
        // tevm mines only successful calls of its own; a reverting one must be a signed transaction with a fixed
        // gas limit (no estimate, which would fail), mined as it arrives.
        const sender = privateKeyToAccount(generatePrivateKey());
        await client.tevmSetAccount({ address: sender.address, balance: 10n ** 18n });
        const wallet = createWalletClient({ account: sender, chain, transport: http(rpcUrl) });
        const hash = await wallet.sendTransaction({
          to: address,
          data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [to, amount] }),
          gas: 100_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
        });
        return hash;
      },
      async approve(owner, spender, amount) {
        await send(owner, 'approve', [spender, amount]);
      },
      async setAllowances(owners, spender, amount) {
        const stateDiff = Object.fromEntries(
          owners.map((owner) => [allowanceSlot(owner, spender), toHex(amount, { size: 32 })]),
        );
        await client.tevmSetAccount({ address, stateDiff });
      },
      async balanceOf(owner) {
        const { data } = await client.tevmContract({
          to: address,
          abi: tokenAbi,
          functionName: 'balanceOf',
          args: [owner],
        });
        return data as bigint;
      },
      async allowance(owner, spender) {
        const { data } = await client.tevmContract({
          to: address,
          abi: tokenAbi,
          functionName: 'allowance',
          args: [owner, spender],
        });
        return data as bigint;
      },
    };
  };

  return {
    rpcUrl,
    chainId,
    deployToken,

    async mine(blocks) {
      await client.tevmMine({ blockCount: blocks });
    },

    async increaseTime(seconds) {
      // A mined block's timestamp is the later of the wall clock and its parent's; the second block adds `interval`.
      await client.tevmMine({ blockCount: 2, interval: seconds });
    },

    async now() {
      return (await client.getBlock({ blockTag: 'latest' })).timestamp;
    },

    async fund(address) {
      await client.tevmSetAccount({ address, balance: 10n ** 18n });
    },

    async deployContract({ abi, bytecode }, args = []) {
      const result = await client.tevmDeploy({
        abi,
        bytecode,
        args: [...args],
        createTransaction: true,
        throwOnFail: true,
      });
      if (!result.createdAddress) throw new Error('deployment returned no address');
      return result.createdAddress;
    },

    sendAs: (from, to, abi, functionName, args) => sendAs(from, to, abi, functionName, args),

    async deployWallet(owner) {
      const salt = nextSalt();
      await client.tevmContract({
        to: factory,
        abi: factoryAbi,
        functionName: 'deploy',
        args: [owner, salt],
        createTransaction: true,
        throwOnFail: true,
      });
      const wallet = predictWalletAddress(factory, owner, salt);
      const code = await client.getCode({ address: wallet });
      if (!code || code === '0x') throw new Error(`SmartWallet for ${owner} was not deployed`);
      return wallet;
    },

    counterfactualWallet(owner, salt = nextSalt()) {
      const address = predictWalletAddress(factory, owner, salt);
      const factoryData = encodeFunctionData({
        abi: factoryAbi,
        functionName: 'deploy',
        args: [owner, salt],
      });
      return {
        address,
        wrapSignature: (signature) =>
          serializeErc6492Signature({ address: factory, data: factoryData, signature }),
      };
    },

    async stop() {
      // Keep-alive sockets from fetch would otherwise hold the server (and jest) open.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** TestToken's storage: `allowance[owner][spender]` (the mapping in slot 4, after name, symbol, supply, balances). */
function allowanceSlot(owner: Address, spender: Address): Hex {
  const inner = keccak256(encodeAbiParameters(parseAbiParameters('address, uint256'), [owner, 4n]));
  return keccak256(encodeAbiParameters(parseAbiParameters('address, bytes32'), [spender, inner]));
}

function predictWalletAddress(factory: Address, owner: Address, salt: Hex): Address {
  const initCode = encodeDeployData({
    abi: compiled.SmartWallet.abi,
    bytecode: compiled.SmartWallet.bytecode,
    args: [owner],
  });
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: initCode });
}
