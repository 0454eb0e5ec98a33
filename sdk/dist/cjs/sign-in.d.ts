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
}
/** A signed-in wallet: a session credential to pass to `createTollgateClient`, and its address. */
export interface SignedIn extends SessionCredential {
    readonly address: string;
    readonly expiresAt: Date;
}
/**
 * Wallet login: POST /auth/nonce, sign the returned Sign-In with Ethereum message, POST /auth/verify. `target` is
 * the API's base URL or a client; `account` a viem account (anything with `address` and `signMessage`) or an
 * EIP-1193 provider. Resolves to the session (token, expiry, address); a refusal throws a TollgateError.
 */
export declare function signIn(target: string | TollgateClient, account: MessageSigner | Eip1193Provider, options?: SignInOptions): Promise<SignedIn>;
export {};
