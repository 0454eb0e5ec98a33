import { hexToString, verifyMessage, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createTollgateClient } from './client.js';
import { TollgateError } from './errors.js';
import { signIn, type Eip1193Provider } from './sign-in.js';

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
    const session = await signIn('http://127.0.0.1:1/', account, { fetch });
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
    const session = await signIn(createTollgateClient({ baseUrl: 'http://127.0.0.1:1', fetch }), wallet);
    expect(wallet.calls).toEqual(['eth_requestAccounts', 'personal_sign']);
    expect(session.address).toBe(account.address);
    expect(session.token).toBe('header.payload.signature');
  });

  it('throws a TollgateError when the service refuses the signature', async () => {
    const { fetch } = fakeService();
    const impostor = { ...account, address: privateKeyToAccount(generatePrivateKey()).address };
    const thrown = await signIn('http://127.0.0.1:1', impostor, { fetch }).catch((error: unknown) => error);
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
    await expect(signIn('http://127.0.0.1:1', silent, { fetch })).rejects.toThrow('no signature');
  });
});
