import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type * as TevmMemoryClient from '@tevm/memory-client';
import type * as TevmServer from '@tevm/server';
import {
  type Abi,
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  serializeErc6492Signature,
  toHex,
} from 'viem';

interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

interface CompiledFixtures {
  SmartWallet: CompiledContract;
  WalletFactory: CompiledContract;
}

export interface CounterfactualWallet {
  address: Address;
  /** Wraps an owner's signature as ERC-6492 so verifiers deploy the wallet inside their eth_call. */
  wrapSignature(innerSignature: Hex): Hex;
}

export interface TestChain {
  rpcUrl: string;
  /** Deploys a SmartWallet owned by `owner` through the factory and returns its address. */
  deployWallet(owner: Address): Promise<Address>;
  counterfactualWallet(owner: Address, salt?: Hex): CounterfactualWallet;
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
const { createServer } = require('@tevm/server') as typeof TevmServer;

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

  const server = createServer(client);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let saltCounter = 0;
  // Distinct salts keep wallets of the same owner apart across calls within one chain.
  const nextSalt = (): Hex => keccak256(toHex(`tollgate-test-wallet-${saltCounter++}`));

  return {
    rpcUrl: `http://127.0.0.1:${port}`,

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
