import { createTollgateClient } from './client.js';
import { unwrap } from './errors.js';
import { checkSiweMessage } from './siwe.js';
/** The chain a sign-in message must name when the caller does not say. */
export const DEFAULT_SIGN_IN_CHAIN_ID = 1;
function isProvider(account) {
    return typeof account.request === 'function';
}
/** UTF-8 as 0x-hex: what `personal_sign` expects, so no wallet mistakes the message for raw bytes. */
function utf8Hex(text) {
    let hex = '';
    for (const byte of new TextEncoder().encode(text))
        hex += byte.toString(16).padStart(2, '0');
    return `0x${hex}`;
}
async function providerAddress(provider) {
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
export async function signIn(target, account, options = {}) {
    const client = typeof target === 'string' ? createTollgateClient({ baseUrl: target, fetch: options.fetch }) : target;
    const address = isProvider(account)
        ? (options.address ?? (await providerAddress(account)))
        : (options.address ?? account.address);
    // A page's client may call a relative base URL (`/api`): its origin is the page's.
    const origin = new URL(options.origin ?? client.baseUrl, globalThis.location?.href);
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
    const session = await unwrap(client.POST('/auth/verify', {
        body: { address, signature: signature, message: challenge.message },
    }));
    return { kind: 'session', token: session.token, expiresAt: new Date(session.expiresAt), address };
}
