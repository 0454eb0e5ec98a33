import { createStore, type EIP6963ProviderDetail } from 'mipd';

/** The part of an EIP-1193 provider the dashboard uses. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
}

export interface Wallet {
  id: string;
  name: string;
  /** A data: URI announced by the wallet (EIP-6963), when there is one. */
  icon?: string;
  provider: Eip1193Provider;
}

declare global {
  interface Window {
    ethereum?: Eip1193Provider;
  }
}

const store = createStore();

function fromDetail(detail: EIP6963ProviderDetail): Wallet {
  return {
    id: detail.info.uuid,
    name: detail.info.name,
    icon: detail.info.icon?.startsWith('data:image/') ? detail.info.icon : undefined,
    provider: detail.provider as Eip1193Provider,
  };
}

/**
 * Installed wallets: those that announce themselves through EIP-6963 (several can coexist), else the legacy
 * `window.ethereum` that a single injected wallet sets. Calls `listener` now and on every new announcement.
 */
export function watchWallets(listener: (wallets: Wallet[]) => void): () => void {
  const emit = (details: readonly EIP6963ProviderDetail[]) => {
    const announced = details.map(fromDetail);
    if (announced.length === 0 && window.ethereum) {
      announced.push({ id: 'injected', name: 'Browser wallet', provider: window.ethereum });
    }
    listener(announced);
  };
  return store.subscribe(emit, { emitImmediately: true });
}

/** Wallet errors (EIP-1193 and common JSON-RPC codes) as a sentence a person can act on. */
export class WalletError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'WalletError';
  }
}

function walletError(error: unknown, action: string): WalletError {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const detail = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  switch (code) {
    case 4001:
      return new WalletError(`You rejected the ${action} request in your wallet. Nothing was changed.`, 4001);
    case 4100:
      return new WalletError(
        'The wallet has not authorised this site. Unlock the wallet and try again.',
        4100,
      );
    case -32002:
      return new WalletError(
        'Your wallet already has a request waiting: open the wallet to answer it.',
        -32002,
      );
    default:
      return new WalletError(
        `The wallet could not complete the ${action}${detail ? `: ${detail}` : '.'}`,
        typeof code === 'number' ? code : undefined,
      );
  }
}

/** Asks the wallet for its accounts (the user approves the connection) and returns the first one. */
export async function connect(wallet: Wallet): Promise<string> {
  const accounts = await walletRequest(wallet, 'connection', 'eth_requestAccounts');
  const first = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof first !== 'string')
    throw new WalletError('The wallet returned no account. Unlock it and try again.');
  return first;
}

function toHex(text: string): string {
  return `0x${Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** EIP-191 `personal_sign` of a UTF-8 message (sent hex-encoded, as EIP-1193 wallets expect). */
export async function personalSign(wallet: Wallet, address: string, message: string): Promise<string> {
  const signature = await walletRequest(wallet, 'signature', 'personal_sign', [toHex(message), address]);
  if (typeof signature !== 'string') throw new WalletError('The wallet returned no signature.');
  return signature;
}

let lastUsed: Wallet | undefined;

/** Remembers the wallet that signed in, so paying later asks the same one. */
export function rememberWallet(wallet: Wallet): void {
  lastUsed = wallet;
}

/**
 * The wallet to pay with: the one that signed in, or after a reload the installed wallet that already exposes
 * `address` (eth_accounts asks nothing of the user), else the first one.
 */
export async function walletFor(address: string): Promise<Wallet> {
  if (lastUsed) return lastUsed;
  const wallets = await new Promise<Wallet[]>((resolve) => {
    let found: Wallet[] = [];
    const stop = watchWallets((list) => (found = list));
    setTimeout(() => {
      stop();
      resolve(found);
    }, 300);
  });
  if (wallets.length === 0) {
    throw new WalletError('No wallet found: install a browser wallet to pay, then reload this page.');
  }
  for (const wallet of wallets) {
    const accounts = await wallet.provider.request({ method: 'eth_accounts' }).catch(() => []);
    if (Array.isArray(accounts) && accounts.some((account) => sameAddress(account, address))) return wallet;
  }
  return wallets[0]!;
}

export function sameAddress(a: unknown, b: string): boolean {
  return typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** A JSON-RPC request through the wallet, its errors turned into sentences about `action`. */
export async function walletRequest(
  wallet: Wallet,
  action: string,
  method: string,
  params?: unknown[],
): Promise<unknown> {
  try {
    return await wallet.provider.request({ method, params });
  } catch (error) {
    throw walletError(error, action);
  }
}
