import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createPublicClient, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { WalletSignatureVerifier } from '../src/auth/signature/wallet-signature.verifier.js';
import { startTestChain, type TestChain } from './utils/evm.js';

const newOwner = () => privateKeyToAccount(generatePrivateKey());

function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** A loopback port nothing listens on, so connections are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('WalletSignatureVerifier against an in-process EVM', () => {
  let chain: TestChain;
  let onChain: WalletSignatureVerifier;
  let offline: WalletSignatureVerifier;

  beforeAll(async () => {
    chain = await startTestChain();
    onChain = new WalletSignatureVerifier({ rpcUrl: chain.rpcUrl, timeoutMs: 5000 });
    offline = new WalletSignatureVerifier({ timeoutMs: 5000 });
  });

  afterAll(async () => {
    await chain?.stop();
  });

  describe('EOA', () => {
    it('accepts the signer of a SIWE message without any RPC', async () => {
      const owner = newOwner();
      const message = createSiweMessage({
        address: owner.address,
        chainId: 1,
        domain: 'tollgate.test',
        nonce: 'abcdef123456',
        uri: 'https://tollgate.test/login',
        version: '1',
      });
      const signature = await owner.signMessage({ message });
      await expect(offline.verify({ address: owner.address, message, signature })).resolves.toBe('valid');

      // An unreachable RPC still yields 'valid': the EOA path never reaches the chain.
      const unreachable = new WalletSignatureVerifier({
        rpcUrl: `http://127.0.0.1:${await closedPort()}`,
        timeoutMs: 5000,
      });
      await expect(unreachable.verify({ address: owner.address, message, signature })).resolves.toBe('valid');
    });

    it('rejects a signature from another key', async () => {
      const owner = newOwner();
      const signature = await newOwner().signMessage({ message: 'nonce-1' });
      await expect(onChain.verify({ address: owner.address, message: 'nonce-1', signature })).resolves.toBe(
        'invalid',
      );
      await expect(offline.verify({ address: owner.address, message: 'nonce-1', signature })).resolves.toBe(
        'invalid',
      );
    });

    it('answers garbage signatures without throwing', async () => {
      const owner = newOwner();
      const garbage = `0x${'ab'.repeat(70)}` as Hex;
      const zeroed = `0x${'00'.repeat(64)}1b` as Hex;
      // With a chain the universal validator reverts on the malformed EOA signature: a definite no.
      await expect(
        onChain.verify({ address: owner.address, message: 'n', signature: garbage }),
      ).resolves.toBe('invalid');
      await expect(onChain.verify({ address: owner.address, message: 'n', signature: zeroed })).resolves.toBe(
        'invalid',
      );
      await expect(
        offline.verify({ address: owner.address, message: 'n', signature: garbage }),
      ).resolves.toBe('unverifiable');
      await expect(offline.verify({ address: owner.address, message: 'n', signature: zeroed })).resolves.toBe(
        'unverifiable',
      );
    });
  });

  describe('deployed ERC-1271 wallet', () => {
    it("accepts its owner's signature", async () => {
      const owner = newOwner();
      const wallet = await chain.deployWallet(owner.address);
      const signature = await owner.signMessage({ message: 'nonce-2' });
      await expect(onChain.verify({ address: wallet, message: 'nonce-2', signature })).resolves.toBe('valid');
    });

    it('rejects a signature from someone other than the owner', async () => {
      const owner = newOwner();
      const wallet = await chain.deployWallet(owner.address);
      const signature = await newOwner().signMessage({ message: 'nonce-3' });
      await expect(onChain.verify({ address: wallet, message: 'nonce-3', signature })).resolves.toBe(
        'invalid',
      );
    });
  });

  describe('counterfactual ERC-6492 wallet', () => {
    it("accepts its owner's wrapped signature without the wallet being deployed", async () => {
      const owner = newOwner();
      const wallet = chain.counterfactualWallet(owner.address);
      const signature = wallet.wrapSignature(await owner.signMessage({ message: 'nonce-4' }));
      await expect(onChain.verify({ address: wallet.address, message: 'nonce-4', signature })).resolves.toBe(
        'valid',
      );
      // The validator deploys inside eth_call only, so the wallet stays counterfactual.
      const reader = createPublicClient({ transport: http(chain.rpcUrl, { retryCount: 0 }) });
      await expect(reader.getCode({ address: wallet.address })).resolves.toBeUndefined();
    });

    it('rejects a wrapped signature from someone other than the owner', async () => {
      const owner = newOwner();
      const wallet = chain.counterfactualWallet(owner.address);
      const signature = wallet.wrapSignature(await newOwner().signMessage({ message: 'nonce-5' }));
      await expect(onChain.verify({ address: wallet.address, message: 'nonce-5', signature })).resolves.toBe(
        'invalid',
      );
    });

    it('is unverifiable without an RPC endpoint', async () => {
      const owner = newOwner();
      const wallet = chain.counterfactualWallet(owner.address);
      const signature = wallet.wrapSignature(await owner.signMessage({ message: 'nonce-6' }));
      await expect(offline.verify({ address: wallet.address, message: 'nonce-6', signature })).resolves.toBe(
        'unverifiable',
      );
    });
  });

  describe('RPC failures fail closed', () => {
    it('is unverifiable when the endpoint refuses connections', async () => {
      const owner = newOwner();
      const wallet = await chain.deployWallet(owner.address);
      const signature = await owner.signMessage({ message: 'nonce-7' });
      const down = new WalletSignatureVerifier({
        rpcUrl: `http://127.0.0.1:${await closedPort()}`,
        timeoutMs: 5000,
      });
      await expect(down.verify({ address: wallet, message: 'nonce-7', signature })).resolves.toBe(
        'unverifiable',
      );
    });

    it('is unverifiable soon after the timeout when the endpoint never answers', async () => {
      const sockets = new Set<Socket>();
      let connections = 0;
      const silent = createServer((socket) => {
        connections++;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      const port = await listenOnLoopback(silent);
      try {
        const owner = newOwner();
        const wallet = chain.counterfactualWallet(owner.address);
        const signature = wallet.wrapSignature(await owner.signMessage({ message: 'nonce-8' }));
        const hanging = new WalletSignatureVerifier({ rpcUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 });

        const started = performance.now();
        await expect(
          hanging.verify({ address: wallet.address, message: 'nonce-8', signature }),
        ).resolves.toBe('unverifiable');
        expect(performance.now() - started).toBeLessThan(2000);
        expect(connections).toBeGreaterThan(0);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    });
  });
});
