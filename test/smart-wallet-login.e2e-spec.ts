import jwt from 'jsonwebtoken';
import { createPublicClient, getAddress, type Hex, http as viemHttp } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { freePort } from '../src/common/net/free-port.js';
import { startTestChain, type TestChain } from './utils/evm.js';
import { http } from './utils/http.js';
import { startServiceProcess, type ServiceProcess } from './utils/service-process.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './utils/test-app.js';
import { login, newWallet } from './utils/wallet.js';

type Api = ReturnType<typeof http>;

interface Challenge {
  nonce: string;
  message: string;
  issuedAt: string;
  expiresAt: string;
}

async function requestChallenge(api: Api, address: string): Promise<Challenge> {
  const response = await api.post('/auth/nonce', { body: { address } });
  expect(response.status).toBe(200);
  return response.body as Challenge;
}

/** Asserts a successful verify and returns its token after checking the JWT names `address` (EIP-55). */
function expectSessionFor(response: Awaited<ReturnType<Api['post']>>, address: string): string {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 200,
    body: { token: expect.any(String), expiresAt: expect.any(String) },
  });
  const claims = jwt.verify(response.body.token, TEST_JWT_SECRET, {
    algorithms: ['HS256'],
  }) as jwt.JwtPayload;
  expect(claims.sub).toBe(getAddress(address));
  expect(response.headers.get('set-cookie')).toMatch(/^tg_session=[\w-]+\.[\w-]+\.[\w-]+;/);
  return response.body.token as string;
}

function expectRefused(response: Awaited<ReturnType<Api['post']>>, code: string): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 401,
    body: { error: expect.any(String), details: { code } },
  });
  expect(response.headers.get('set-cookie')).toBeNull();
}

describe('smart-wallet login (ERC-1271 / ERC-6492) over HTTP', () => {
  let chain: TestChain | undefined;
  let online: TestApp | undefined;
  let rpcDown: ServiceProcess | undefined;
  let noRpc: ServiceProcess | undefined;
  let api: Api;
  let reader: ReturnType<typeof createPublicClient>;

  beforeAll(async () => {
    chain = await startTestChain();
    reader = createPublicClient({ transport: viemHttp(chain.rpcUrl, { retryCount: 0 }) });
    online = await startTestApp({
      // Generous: with other suites running beside it, tevm's first calls can take seconds.
      env: { CHAIN_RPC_URL: chain.rpcUrl, CHAIN_RPC_TIMEOUT_MS: '10000' },
    });
    api = http(online.url);
    // The other instances are processes of their own on the worker's database.
    rpcDown = await startServiceProcess(online.databaseUrl, {
      CHAIN_RPC_URL: `http://127.0.0.1:${await freePort()}`,
      CHAIN_RPC_TIMEOUT_MS: '1500',
    });
    noRpc = await startServiceProcess(online.databaseUrl, {
      CHAIN_RPC_URL: '',
      CHAIN_RPC_TIMEOUT_MS: '1500',
    });
    // A chain, an app and two service processes: minutes on a busy machine.
  }, 240_000);

  afterAll(async () => {
    // Apps first (their RPC client's keep-alive sockets point at the chain), then the chain.
    for (const instance of [noRpc, rpcDown]) await instance?.kill();
    await online?.close();
    await chain?.stop();
  });

  const codeAt = (address: Hex) => reader.getCode({ address });

  describe('deployed ERC-1271 wallet', () => {
    let owner: PrivateKeyAccount;
    let wallet: Hex;

    beforeEach(async () => {
      owner = newWallet();
      wallet = await chain!.deployWallet(owner.address);
    });

    it("logs in with the owner's signature over the SIWE message for the wallet's address", async () => {
      const { message } = await requestChallenge(api, wallet);
      expect(message).toContain(`\n${getAddress(wallet)}\n`);
      const signature = await owner.signMessage({ message });

      const response = await api.post('/auth/verify', { body: { address: wallet, signature, message } });
      const token = expectSessionFor(response, wallet);

      const session = await api.get('/auth/session', { token });
      expect(session.status).toBe(200);
      expect(session.body).toMatchObject({ address: getAddress(wallet), via: 'jwt', operator: false });
      // The owner EOA got no session of its own out of this.
      expect(session.body.address).not.toBe(owner.address);
    });

    it("logs in with the owner's signature over the bare nonce", async () => {
      const lower = wallet.toLowerCase();
      const { nonce } = await requestChallenge(api, lower);
      const signature = await owner.signMessage({ message: nonce });

      const response = await api.post('/auth/verify', { body: { address: lower, signature } });
      const token = expectSessionFor(response, wallet);

      const session = await api.get('/auth/session', { token });
      expect(session.status).toBe(200);
      expect(session.body.address).toBe(getAddress(wallet));
    });

    it('refuses a wrong owner with invalid_signature and leaves the challenge usable', async () => {
      const { message } = await requestChallenge(api, wallet);
      const forged = await newWallet().signMessage({ message });

      const refused = await api.post('/auth/verify', {
        body: { address: wallet, signature: forged, message },
      });
      expectRefused(refused, 'invalid_signature');
      // The refusal did not consume the challenge: the genuine owner still logs in with it.
      const genuine = await owner.signMessage({ message });
      const accepted = await api.post('/auth/verify', {
        body: { address: wallet, signature: genuine, message },
      });
      expectSessionFor(accepted, wallet);
      // …and that was the last use of the challenge.
      expectRefused(
        await api.post('/auth/verify', { body: { address: wallet, signature: genuine, message } }),
        'challenge_not_found',
      );
    });
  });

  describe('counterfactual ERC-6492 wallet', () => {
    it("logs in with the owner's wrapped signature and leaves the wallet undeployed", async () => {
      const owner = newWallet();
      const wallet = chain!.counterfactualWallet(owner.address);
      await expect(codeAt(wallet.address)).resolves.toBeUndefined();

      const { message } = await requestChallenge(api, wallet.address);
      const signature = wallet.wrapSignature(await owner.signMessage({ message }));
      const response = await api.post('/auth/verify', {
        body: { address: wallet.address, signature, message },
      });
      const token = expectSessionFor(response, wallet.address);
      const session = await api.get('/auth/session', { token });
      expect(session.status).toBe(200);
      expect(session.body.address).toBe(getAddress(wallet.address));

      // The factory call ran inside eth_call only: still no code at the address.
      await expect(codeAt(wallet.address)).resolves.toBeUndefined();
    });

    it('refuses a wrapped signature from a wrong owner', async () => {
      const owner = newWallet();
      const wallet = chain!.counterfactualWallet(owner.address);
      const { message } = await requestChallenge(api, wallet.address);
      const forged = wallet.wrapSignature(await newWallet().signMessage({ message }));

      const refused = await api.post('/auth/verify', {
        body: { address: wallet.address, signature: forged, message },
      });
      expectRefused(refused, 'invalid_signature');
      await expect(codeAt(wallet.address)).resolves.toBeUndefined();

      // Not consumed either: the owner can still finish this login.
      const genuine = wallet.wrapSignature(await owner.signMessage({ message }));
      expectSessionFor(
        await api.post('/auth/verify', { body: { address: wallet.address, signature: genuine, message } }),
        wallet.address,
      );
    });
  });

  describe('RPC endpoint down', () => {
    it('fails smart-wallet logins closed with signature_unverifiable, without consuming the challenge', async () => {
      const down = http(rpcDown!.url);
      const owner = newWallet();
      const wallet = await chain!.deployWallet(owner.address);
      const { message } = await requestChallenge(down, wallet);
      const signature = await owner.signMessage({ message });

      const refused = await down.post('/auth/verify', { body: { address: wallet, signature, message } });
      expectRefused(refused, 'signature_unverifiable');

      // Both instances share the database: the healthy one can still complete the very same challenge.
      expectSessionFor(
        await api.post('/auth/verify', { body: { address: wallet, signature, message } }),
        wallet,
      );
    });

    it('fails a counterfactual login closed with signature_unverifiable', async () => {
      const down = http(rpcDown!.url);
      const owner = newWallet();
      const wallet = chain!.counterfactualWallet(owner.address);
      const { message } = await requestChallenge(down, wallet.address);
      const signature = wallet.wrapSignature(await owner.signMessage({ message }));

      expectRefused(
        await down.post('/auth/verify', { body: { address: wallet.address, signature, message } }),
        'signature_unverifiable',
      );
    });

    it('still logs an ordinary EOA in on that instance', async () => {
      const down = http(rpcDown!.url);
      const session = await login(rpcDown!.url);
      const claims = jwt.verify(session.token, TEST_JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
      expect(claims.sub).toBe(session.address);
      const current = await down.get('/auth/session', { token: session.token });
      expect(current.status).toBe(200);
      expect(current.body.address).toBe(session.address);
    });
  });

  describe('no CHAIN_RPC_URL configured', () => {
    it('answers an ERC-6492 signature with signature_unverifiable', async () => {
      const offline = http(noRpc!.url);
      const owner = newWallet();
      const wallet = chain!.counterfactualWallet(owner.address);
      const { message } = await requestChallenge(offline, wallet.address);
      const signature = wallet.wrapSignature(await owner.signMessage({ message }));

      expectRefused(
        await offline.post('/auth/verify', { body: { address: wallet.address, signature, message } }),
        'signature_unverifiable',
      );
    });
  });
});
