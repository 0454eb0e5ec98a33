import { sameAddress, walletRequest, WalletError, type Wallet } from './wallet';

/** The `erc20` terms of GET /subscriptions/plan. */
export interface Erc20Terms {
  chainId: number;
  token: string;
  symbol: string;
  decimals: number;
  receiver: string;
  pricePerPeriod: string;
  confirmations: number;
}

/** "5 USDC": an amount in the token's smallest unit, in whole tokens. */
export function formatAmount(amount: string, decimals: number, symbol: string): string {
  const value = BigInt(amount);
  const unit = 10n ** BigInt(decimals);
  const fraction = (value % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${value / unit}${fraction ? `.${fraction}` : ''} ${symbol}`;
}

const word = (hex: string) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');

/** Calldata of ERC-20 `transfer(to, amount)`: its selector, then the two arguments as 32-byte words. */
export function transferCalldata(to: string, amount: string): string {
  return `0xa9059cbb${word(to)}${word(BigInt(amount).toString(16))}`;
}

/** Calldata of ERC-20 `approve(spender, amount)`. */
export function approveCalldata(spender: string, amount: bigint): string {
  return `0x095ea7b3${word(spender)}${word(amount.toString(16))}`;
}

/** Calldata of ERC-20 `allowance(owner, spender)`. */
export function allowanceCalldata(owner: string, spender: string): string {
  return `0xdd62ed3e${word(owner)}${word(spender)}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Connects `wallet` and checks that it acts for `payer` on chain `chainId` (asking it to switch when it is on
 * another), before a transaction or a signature for that chain; `what` names the act in the error ("to pay").
 */
export async function readyWallet(
  wallet: Wallet,
  payer: string,
  chainId: number,
  what: string,
  onStep: (text: string) => void,
): Promise<void> {
  onStep('Connecting to the wallet…');
  const accounts = await walletRequest(wallet, 'connection', 'eth_requestAccounts');
  if (!Array.isArray(accounts) || !accounts.some((account) => sameAddress(account, payer))) {
    throw new WalletError(`Switch the wallet to the signed-in account ${payer} ${what}, then try again.`);
  }
  const current = Number(await walletRequest(wallet, 'network check', 'eth_chainId'));
  if (current !== chainId) {
    onStep(`Switching the wallet to chain ${chainId}…`);
    await walletRequest(wallet, 'network switch', 'wallet_switchEthereumChain', [
      { chainId: `0x${chainId.toString(16)}` },
    ]);
  }
}

/**
 * Pays one period: the signed-in account sends `transfer(receiver, price)` on the token contract, on the plan's
 * chain (the wallet is asked to switch when it is on another). Resolves to the transaction hash once the wallet has
 * sent it; {@link waitForPayment} then waits until the service can credit it.
 */
export async function sendPayment(
  wallet: Wallet,
  payer: string,
  terms: Erc20Terms,
  onStep: (text: string) => void,
): Promise<string> {
  await readyWallet(wallet, payer, terms.chainId, 'to pay', onStep);
  onStep(
    `Confirm the payment of ${formatAmount(terms.pricePerPeriod, terms.decimals, terms.symbol)} in your wallet…`,
  );
  return sendTransaction(wallet, 'payment', {
    from: payer,
    to: terms.token,
    data: transferCalldata(terms.receiver, terms.pricePerPeriod),
  });
}

/** The kinds of transaction the page has the wallet send, as its messages name them. */
export type TransactionKind = 'payment' | 'approval' | 'revocation';

/** Has the wallet send a call of `to` without ether (the user confirms it there); answers its hash. */
export async function sendTransaction(
  wallet: Wallet,
  kind: TransactionKind,
  call: { from: string; to: string; data: string },
): Promise<string> {
  const hash = await walletRequest(wallet, kind, 'eth_sendTransaction', [{ ...call, value: '0x0' }]);
  if (typeof hash !== 'string') throw new WalletError('The wallet returned no transaction hash.');
  return hash;
}

/**
 * Waits (through the wallet's node) until the transaction is mined, succeeded and has the plan's confirmations.
 * `what` names it in the messages: the payment, or the approval of automatic renewal.
 */
export async function waitForPayment(
  wallet: Wallet,
  hash: string,
  confirmations: number,
  onStep: (text: string) => void,
  what: TransactionKind = 'payment',
): Promise<void> {
  for (;;) {
    const receipt = (await walletRequest(wallet, 'receipt check', 'eth_getTransactionReceipt', [hash])) as {
      status?: string;
      blockNumber?: string;
    } | null;
    if (receipt?.blockNumber) {
      if (receipt.status !== '0x1') {
        throw new WalletError(
          {
            payment: 'The payment transaction failed on chain (reverted): nothing was paid.',
            approval: 'The approval transaction failed on chain (reverted): nothing was approved.',
            revocation: 'The revocation failed on chain (reverted): nothing was revoked.',
          }[what],
        );
      }
      const head = Number(await walletRequest(wallet, 'block check', 'eth_blockNumber'));
      const have = head - Number(receipt.blockNumber) + 1;
      if (have >= confirmations) return;
      onStep(`Waiting for confirmations (${have} of ${confirmations})…`);
    } else {
      onStep(`Waiting for the ${what} to be mined…`);
    }
    await sleep(1500);
  }
}
