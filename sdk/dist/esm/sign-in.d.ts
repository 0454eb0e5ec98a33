import { type TollgateClient, type TollgateClientOptions } from './client.js';
import type { SessionCredential } from './credentials.js';
type Hex = `0x${string}`;
/**
 * Anything that signs an EIP-191 personal message for an address: a viem account (`privateKeyToAccount`,
 * `toAccount`, a smart account) or a wallet client bound to one. Structural, so the client does not depend on viem.
 */
export interface MessageSigner {
    readonly address: string;
    signMessage(args: {
        message: string;
    }): Promise<Hex | string>;
}
/** An EIP-1193 provider (`window.ethereum`, a WalletConnect provider, …): signs with `personal_sign`. */
export interface Eip1193Provider {
    request(args: {
        method: string;
        params?: unknown[];
    }): Promise<unknown>;
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
export declare const DEFAULT_SIGN_IN_CHAIN_ID = 1;
/** A signed-in wallet: a session credential to pass to `createTollgateClient`, and its address. */
export interface SignedIn extends SessionCredential {
    readonly address: string;
    readonly expiresAt: Date;
}
/**
 * Wallet login: POST /auth/nonce, check and sign the returned Sign-In with Ethereum message, POST /auth/verify.
 * `target` is the API's base URL or a client; `account` a viem account (anything with `address` and
 * `signMessage`) or an EIP-1193 provider. Only an EIP-4361 message for the expected origin (the base URL's, or
 * `options.origin`), the signing address and the expected chain (`options.chainId`, default 1) is signed; anything
 * else throws a SignInMessageError before the wallet is asked. Resolves to the session (token, expiry, address); a
 * refusal of the service throws a TollgateError.
 */
export declare function signIn(target: string | TollgateClient, account: MessageSigner | Eip1193Provider, options?: SignInOptions): Promise<SignedIn>;
export {};
