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
  createWalletClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  hexToBytes,
  http,
  keccak256,
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
  deployToken(name: string, symbol: string, decimals: number): Promise<TestToken>;
  chainId: number;
  /** Mines empty blocks (each transaction is mined in a block of its own). */
  mine(blocks: number): Promise<void>;
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
 * tevm's JSON-RPC server, except that a receipt carries its `status`: this tevm version leaves it out (it only
 * copies a byte-array status, and the VM stores a number), so every receipt would look neither succeeded nor
 * reverted. The status is taken from the VM's own receipt.
 */
function rpcHandler(client: MemoryClient): (request: IncomingMessage, response: ServerResponse) => void {
  const tevm = createHttpHandler(client);
  return (request, response) => {
    void readBody(request).then((body) => {
      const call = JSON.parse(body) as { method?: string; params?: unknown[] };
      const replay = Readable.from([body]) as unknown as IncomingMessage;
      if (call.method !== 'eth_getTransactionReceipt') return tevm(replay, response);
      let statusCode = 200;
      let headers: Record<string, string> = {};
      const capture = {
        writeHead(code: number, head: Record<string, string>) {
          statusCode = code;
          headers = head;
          return capture;
        },
        end(text: string) {
          void withStatus(client, text).then((patched) =>
            response.writeHead(statusCode, headers).end(patched),
          );
        },
      };
      return tevm(replay, capture as unknown as ServerResponse);
    });
  };
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

  const deployToken = async (name: string, symbol: string, decimals: number): Promise<TestToken> => {
    const token = await client.tevmDeploy({
      abi: tokenAbi,
      bytecode: compiled.TestToken.bytecode,
      args: [name, symbol, decimals],
      createTransaction: true,
      throwOnFail: true,
    });
    const address = token.createdAddress;
    if (!address) throw new Error('TestToken deployment returned no address');
    let sent = 0;
    const send = async (from: Address | undefined, functionName: string, args: unknown[]): Promise<Hex> => {
      // Gas for the impersonated sender (the base fee rises above zero once a signed transaction is mined).
      if (from !== undefined) await client.tevmSetAccount({ address: from, balance: 10n ** 18n });
      const result = await client.tevmContract({
        ...(from === undefined ? {} : { from }),
        to: address,
        abi: tokenAbi,
        functionName,
        args,
        // tevm's impersonated transactions are unsigned, so their hash leaves the sender out: two senders making
        // the same call would share one hash. A gas limit of its own keeps each transaction's hash apart.
        gas: 300_000n + BigInt(sent++),
        createTransaction: true,
        throwOnFail: true,
      });
      if (!result.txHash) throw new Error(`${functionName} was not mined`);
      return result.txHash;
    };
    return {
      address,
      async mint(to, amount) {
        await send(undefined, 'mint', [to, amount]);
      },
      transfer: (from, to, amount) => send(from, 'transfer', [to, amount]),
      transferMany: (from, recipients) =>
        send(from, 'transferMany', [recipients.map((r) => r.to), recipients.map((r) => r.amount)]),
      async revertedTransfer(to, amount) {
        // tevm mines only successful calls of its own; a reverting one must be a signed transaction with a fixed
        // gas limit (no estimate, which would fail), mined explicitly.
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
        await client.tevmMine();
        return hash;
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
    };
  };

  return {
    rpcUrl,
    chainId,
    deployToken,

    async mine(blocks) {
      await client.tevmMine({ blockCount: blocks });
    },

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

function predictWalletAddress(factory: Address, owner: Address, salt: Hex): Address {
  const initCode = encodeDeployData({
    abi: compiled.SmartWallet.abi,
    bytecode: compiled.SmartWallet.bytecode,
    args: [owner],
  });
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: initCode });
}
