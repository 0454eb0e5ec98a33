import { jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hexToString, verifyMessage, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { createTollgateClient } from './client.js';
import { TollgateError } from './errors.js';
import { signIn, type Eip1193Provider, type MessageSigner } from './sign-in.js';
import { SignInMessageError } from './siwe.js';

const MESSAGE = (address: string) =>
  `localhost:3000 wants you to sign in with your Ethereum account:\n${address}\n\nSign in to Tollgate.\n\nURI: http://localhost:3000\nVersion: 1\nChain ID: 1\nNonce: k3Jf9QmZp2XvT8rLwB6nYc\nIssued At: 2026-11-22T01:30:00.000Z`;
const EXPIRES_AT = '2026-11-23T01:30:00.000Z';

/**
 * A stand-in for the service's two login routes: hands out a message, and issues a token only for a signature
 * of that message by the address (checked with viem, as the service does for plain wallets).
 */
function fakeService() {
  const paths: string[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    paths.push(url.pathname);
    const body = (await request.json()) as { address: string; signature?: Hex; message?: string };
    const json = (status: number, value: unknown) =>
      new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
    if (url.pathname === '/auth/nonce') {
      return json(200, { nonce: 'k3Jf9QmZp2XvT8rLwB6nYc', message: MESSAGE(body.address) });
    }
    const valid =
      body.message === MESSAGE(body.address) &&
      (await verifyMessage({
        address: body.address as Hex,
        message: body.message,
        signature: body.signature!,
      }));
    return valid
      ? json(200, { token: 'header.payload.signature', expiresAt: EXPIRES_AT })
      : json(401, { error: 'signature does not match', details: { code: 'invalid_signature' } });
  };
  return { fetch, paths };
}

/** An EIP-1193 provider over a viem account, answering the two methods signIn uses. */
function provider(account: ReturnType<typeof privateKeyToAccount>): Eip1193Provider & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async request({ method, params }) {
      calls.push(method);
      if (method === 'eth_requestAccounts') return [account.address];
      if (method === 'personal_sign') {
        const [message, address] = params as [Hex, string];
        expect(address).toBe(account.address);
        return account.signMessage({ message: hexToString(message) });
      }
      throw new Error(`unexpected ${method}`);
    },
  };
}

describe('signIn', () => {
  const account = privateKeyToAccount(generatePrivateKey());

  it('asks a nonce, signs the message with a viem account and returns the session', async () => {
    const { fetch, paths } = fakeService();
    const session = await signIn('http://localhost:3000/', account, { fetch });
    expect(paths).toEqual(['/auth/nonce', '/auth/verify']);
    expect(session).toEqual({
      kind: 'session',
      token: 'header.payload.signature',
      expiresAt: new Date(EXPIRES_AT),
      address: account.address,
    });
  });

  it('signs with personal_sign through an EIP-1193 provider, and takes a client instead of a URL', async () => {
    const { fetch } = fakeService();
    const wallet = provider(account);
    const session = await signIn(createTollgateClient({ baseUrl: 'http://localhost:3000', fetch }), wallet);
    expect(wallet.calls).toEqual(['eth_requestAccounts', 'personal_sign']);
    expect(session.address).toBe(account.address);
    expect(session.token).toBe('header.payload.signature');
  });

  it('throws a TollgateError when the service refuses the signature', async () => {
    const { fetch } = fakeService();
    const impostor = { ...account, address: privateKeyToAccount(generatePrivateKey()).address };
    const thrown = await signIn('http://localhost:3000', impostor, { fetch }).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(TollgateError);
    expect(thrown).toMatchObject({
      status: 401,
      code: 'invalid_signature',
      error: 'signature does not match',
    });
  });

  it('refuses a provider that signs nothing', async () => {
    const { fetch } = fakeService();
    const silent: Eip1193Provider = {
      request: async ({ method }) => (method === 'eth_requestAccounts' ? [account.address] : null),
    };
    await expect(signIn('http://localhost:3000', silent, { fetch })).rejects.toThrow('no signature');
  });
});

/**
 * A service on loopback that answers POST /auth/nonce with a message of its choosing (a challenge relayed from
 * another service, arbitrary text), and records every request it gets.
 */
async function hostileService(message: (address: string) => string): Promise<{
  url: string;
  paths: string[];
  close(): Promise<void>;
}> {
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      paths.push(request.url ?? '');
      const { address } = JSON.parse(body) as { address: string };
      const answer =
        request.url === '/auth/nonce'
          ? { nonce: 'k3Jf9QmZp2XvT8rLwB6nYc', message: message(address) }
          : { token: 'header.payload.signature', expiresAt: EXPIRES_AT };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A signer that must never be asked. */
function watchedSigner(address: string): MessageSigner & { signMessage: jest.Mock } {
  return { address, signMessage: jest.fn(async () => '0x00') } as never;
}

const siwe = (address: Hex, fields: { domain: string; uri: string; chainId?: number }) =>
  createSiweMessage({
    address,
    chainId: fields.chainId ?? 1,
    domain: fields.domain,
    uri: fields.uri,
    nonce: 'k3Jf9QmZp2XvT8rLwB6nYc',
    version: '1',
    statement: 'Sign in to Tollgate.',
    issuedAt: new Date('2026-11-22T01:30:00.000Z'),
    expirationTime: new Date('2026-11-22T01:40:00.000Z'),
  });

describe('signIn refuses what is not a sign-in to the expected origin, address and chain', () => {
  const account = privateKeyToAccount(generatePrivateKey());

  /** The challenge a service on `host` would hand out, as the service builds it. */
  const own = (address: string, host: string) =>
    siwe(address as Hex, { domain: host, uri: `http://${host}` });

  it.each([
    [
      "another service's challenge, relayed",
      (address: string) => own(address, 'tollgate.example.com'),
      'wrong_domain',
    ],
    ['arbitrary text', () => 'I authorise anything', 'not_siwe'],
    [
      'a challenge naming this host, with a URI elsewhere',
      (address: string, host: string) =>
        own(address, host).replace(`URI: http://${host}`, 'URI: https://tollgate.example.com'),
      'wrong_uri',
    ],
    [
      'a challenge for another address',
      (_address: string, host: string) => own(privateKeyToAccount(generatePrivateKey()).address, host),
      'wrong_address',
    ],
    [
      'a challenge for another chain',
      (address: string, host: string) => own(address, host).replace('Chain ID: 1', 'Chain ID: 137'),
      'wrong_chain',
    ],
    [
      'a challenge with a line added after its fields',
      (address: string, host: string) => `${own(address, host)}\nI also authorise anything`,
      'not_siwe',
    ],
  ])('%s: nothing signed, nothing sent to /auth/verify', async (_case, message, code) => {
    const hostile = await hostileService((address) => message(address, new URL(hostile.url).host));
    const signer = watchedSigner(account.address);
    try {
      const thrown = await signIn(hostile.url, signer)
        .then(() => undefined)
        .catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(SignInMessageError);
      expect(thrown).toMatchObject({ code });
    } finally {
      await hostile.close();
    }
    expect(signer.signMessage).not.toHaveBeenCalled();
    expect(hostile.paths).toEqual(['/auth/nonce']);
  });

  it('never asks an EIP-1193 wallet to sign a relayed challenge', async () => {
    const hostile = await hostileService((address) =>
      siwe(address as Hex, { domain: 'tollgate.example.com', uri: 'https://tollgate.example.com' }),
    );
    const calls: string[] = [];
    const wallet: Eip1193Provider = {
      request: async ({ method }) => {
        calls.push(method);
        return method === 'eth_requestAccounts' ? [account.address] : '0x00';
      },
    };
    try {
      await expect(signIn(hostile.url, wallet)).rejects.toMatchObject({ code: 'wrong_domain' });
    } finally {
      await hostile.close();
    }
    expect(calls).toEqual(['eth_requestAccounts']);
  });

  it("signs a message for the service's own host, the loopback names being one host", async () => {
    const hostile = await hostileService((address) => {
      const port = new URL(hostile.url).port;
      return siwe(address as Hex, { domain: `localhost:${port}`, uri: `http://localhost:${port}` });
    });
    const signer = watchedSigner(account.address);
    try {
      await signIn(hostile.url, signer);
    } finally {
      await hostile.close();
    }
    expect(signer.signMessage).toHaveBeenCalledTimes(1);
    expect(hostile.paths).toEqual(['/auth/nonce', '/auth/verify']);
  });

  it('signs for another chain or another public origin only when the caller names them', async () => {
    const message = (address: string) =>
      siwe(address as Hex, { domain: 'app.example.com', uri: 'https://app.example.com/', chainId: 8453 });
    const hostile = await hostileService(message);
    const signer = watchedSigner(account.address);
    try {
      await expect(signIn(hostile.url, signer, { chainId: 8453 })).rejects.toMatchObject({
        code: 'wrong_domain',
      });
      await expect(signIn(hostile.url, signer, { origin: 'https://app.example.com' })).rejects.toMatchObject({
        code: 'wrong_chain',
      });
      await expect(
        signIn(hostile.url, signer, { origin: 'http://app.example.com', chainId: 8453 }),
      ).rejects.toMatchObject({ code: 'wrong_uri' });
      expect(signer.signMessage).not.toHaveBeenCalled();
      await signIn(hostile.url, signer, { origin: 'https://app.example.com', chainId: 8453 });
    } finally {
      await hostile.close();
    }
    expect(signer.signMessage).toHaveBeenCalledWith({ message: message(account.address) });
  });
});
