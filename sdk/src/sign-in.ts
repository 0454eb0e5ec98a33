import { createTollgateClient, type TollgateClient, type TollgateClientOptions } from './client.js';
import type { SessionCredential } from './credentials.js';
import { unwrap } from './errors.js';
import { checkSiweMessage } from './siwe.js';

type Hex = `0x${string}`;

/**
 * Anything that signs an EIP-191 personal message for an address: a viem account (`privateKeyToAccount`,
 * `toAccount`, a smart account) or a wallet client bound to one. Structural, so the client does not depend on viem.
 */
export interface MessageSigner {
  readonly address: string;
  signMessage(args: { message: string }): Promise<Hex | string>;
}

/** An EIP-1193 provider (`window.ethereum`, a WalletConnect provider, …): signs with `personal_sign`. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface SignInOptions {
  /** With a provider: the account to sign with. Default: the first of `eth_requestAccounts`. */
  address?: string;
  /** With a base URL: the fetch to use (default: the global fetch). */
  fetch?: TollgateClientOptions['fetch'];
  /**
   * The chain (EIP-155 id) the sign-in message must name: the service's AUTH_CHAIN_ID. Default 1 (Ethereum
   * mainnet, the service's default); a message for any other chain is refused.
   */
  chainId?: number;
  /**
   * The origin the sign-in message must name (its domain, and its URI's origin), e.g. `https://app.example.com`.
   * Default: the base URL's. Set it only when the service signs in under another public origin than the URL called
   * (its AUTH_DOMAIN and AUTH_URI, e.g. behind a load balancer's own address).
   */
  origin?: string;
}

/** The chain a sign-in message must name when the caller does not say. */
export const DEFAULT_SIGN_IN_CHAIN_ID = 1;

/** A signed-in wallet: a session credential to pass to `createTollgateClient`, and its address. */
export interface SignedIn extends SessionCredential {
  readonly address: string;
  readonly expiresAt: Date;
}

function isProvider(account: MessageSigner | Eip1193Provider): account is Eip1193Provider {
  return typeof (account as Eip1193Provider).request === 'function';
}

/** UTF-8 as 0x-hex: what `personal_sign` expects, so no wallet mistakes the message for raw bytes. */
function utf8Hex(text: string): Hex {
  let hex = '';
  for (const byte of new TextEncoder().encode(text)) hex += byte.toString(16).padStart(2, '0');
  return `0x${hex}`;
}

async function providerAddress(provider: Eip1193Provider): Promise<string> {
  const accounts = await provider.request({ method: 'eth_requestAccounts' });
  if (!Array.isArray(accounts) || typeof accounts[0] !== 'string') {
    throw new TypeError('signIn: the provider returned no account');
  }
  return accounts[0];
}

/**
 * Wallet login: POST /auth/nonce, check and sign the returned Sign-In with Ethereum message, POST /auth/verify.
 * `target` is the API's base URL or a client; `account` a viem account (anything with `address` and
 * `signMessage`) or an EIP-1193 provider. Only an EIP-4361 message for the expected origin (the base URL's, or
 * `options.origin`), the signing address and the expected chain (`options.chainId`, default 1) is signed; anything
 * else throws a SignInMessageError before the wallet is asked. Resolves to the session (token, expiry, address); a
 * refusal of the service throws a TollgateError.
 */
export async function signIn(
  target: string | TollgateClient,
  account: MessageSigner | Eip1193Provider,
  options: SignInOptions = {},
): Promise<SignedIn> {
  const client =
    typeof target === 'string' ? createTollgateClient({ baseUrl: target, fetch: options.fetch }) : target;
  const address = isProvider(account)
    ? (options.address ?? (await providerAddress(account)))
    : (options.address ?? account.address);
  // A page's client may call a relative base URL (`/api`): its origin is the page's.
  const origin = new URL(
    options.origin ?? client.baseUrl,
    (globalThis as { location?: { href: string } }).location?.href,
  );
  const challenge = await unwrap(client.POST('/auth/nonce', { body: { address } }));
  checkSiweMessage(challenge.message, {
    origin,
    address,
    chainId: options.chainId ?? DEFAULT_SIGN_IN_CHAIN_ID,
  });
  const signature = isProvider(account)
    ? await account.request({ method: 'personal_sign', params: [utf8Hex(challenge.message), address] })
    : await account.signMessage({ message: challenge.message });
  if (typeof signature !== 'string' || !signature.startsWith('0x')) {
    throw new TypeError('signIn: the wallet returned no signature');
  }
  const session = await unwrap(
    client.POST('/auth/verify', {
      body: { address, signature: signature as Hex, message: challenge.message },
    }),
  );
  return { kind: 'session', token: session.token, expiresAt: new Date(session.expiresAt), address };
}
