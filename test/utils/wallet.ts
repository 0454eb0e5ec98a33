import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { http } from './http.js';

export interface WalletSession {
  account: PrivateKeyAccount;
  address: `0x${string}`;
  token: string;
  /** The `tg_session=<jwt>` pair, ready for a Cookie header. */
  cookie: string;
  expiresAt: string;
}

export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** Logs a wallet in through the real flow: POST /auth/nonce, personal_sign of the message, POST /auth/verify. */
export async function login(
  baseUrl: string,
  account: PrivateKeyAccount = newWallet(),
): Promise<WalletSession> {
  const api = http(baseUrl);
  const nonce = await api.post('/auth/nonce', { body: { address: account.address } });
  if (nonce.status !== 200) throw new Error(`nonce failed: ${nonce.status} ${nonce.text}`);
  const signature = await account.signMessage({ message: nonce.body.message });
  const verify = await api.post('/auth/verify', {
    body: { address: account.address, signature, message: nonce.body.message },
  });
  if (verify.status !== 200) throw new Error(`verify failed: ${verify.status} ${verify.text}`);
  const setCookie = verify.headers.get('set-cookie') ?? '';
  return {
    account,
    address: account.address,
    token: verify.body.token,
    cookie: setCookie.split(';')[0]!,
    expiresAt: verify.body.expiresAt,
  };
}
