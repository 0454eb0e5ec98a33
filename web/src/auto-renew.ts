import { buildMandate as buildSignableMandate, MANDATE_TYPES } from '@tollgate/client';
import type { AutoRenewTerms, Mandate } from './api';
import {
  allowanceCalldata,
  approveCalldata,
  formatAmount,
  readyWallet,
  sendTransaction,
  waitForPayment,
} from './payment';
import { walletRequest, WalletError, type Wallet } from './wallet';

/** The `erc20` terms of a mandate: the plan's `autoRenew` with its chain and contract, and the plan's price. */
export interface MandateTerms {
  chainId: number;
  charger: string;
  token: string;
  payee: string;
  /** The subscription's plan's price per period, in the token's smallest unit. */
  amount: string;
  periodSeconds: number;
  symbol: string;
  decimals: number;
}

/** The `erc20` terms of `offer` for a plan of `amount` every `periodSeconds`, or null when it is not `erc20`. */
export function mandateTerms(
  offer: AutoRenewTerms,
  plan: { amount: string; periodSeconds: number },
  token: { symbol: string; decimals: number },
): MandateTerms | null {
  if (offer.gateway !== 'erc20' || !offer.chainId || !offer.charger || !offer.token || !offer.payee)
    return null;
  return {
    chainId: offer.chainId,
    charger: offer.charger,
    token: offer.token,
    payee: offer.payee,
    ...plan,
    ...token,
  };
}

/** The EIP-712 types as `eth_signTypedData_v4` wants them: the domain's, and the client's Mandate. */
const TYPED_DATA_TYPES = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
  ...MANDATE_TYPES,
};

/** A mandate of `periods` periods from the subscription's period end, built by the client as the service checks it. */
export function buildMandate(
  payer: string,
  terms: MandateTerms,
  periodEnd: string,
  periods: number,
): Mandate {
  const { chainId, charger, token, payee, amount, periodSeconds } = terms;
  return buildSignableMandate({
    terms: { gateway: 'erc20', chainId, charger, token, payee, amount, periodSeconds },
    payer,
    currentPeriodEnd: periodEnd,
    plan: { pricePerPeriod: amount, periodSeconds },
    periods,
  }).mandate;
}

/** What the charging contract may take over the whole mandate: its amount times its periods. */
export function mandateTotal(mandate: Mandate): bigint {
  return BigInt(mandate.amount) * BigInt(mandate.periods);
}

/** The allowance `payer` gave the charging contract, read through the wallet's node; null when it cannot be read. */
async function allowanceOf(wallet: Wallet, payer: string, terms: MandateTerms): Promise<bigint | null> {
  try {
    const answer = await walletRequest(wallet, 'allowance check', 'eth_call', [
      { to: terms.token, data: allowanceCalldata(payer, terms.charger) },
      'latest',
    ]);
    return typeof answer === 'string' && /^0x[0-9a-fA-F]+$/.test(answer) ? BigInt(answer) : null;
  } catch {
    return null;
  }
}

/**
 * Whether the token would take `approve(charger, amount)` from `payer` now (an `eth_call` of it): a token that wants
 * a nonzero allowance set to 0 before another, as USDT's does, refuses it.
 */
async function approvalWouldPass(
  wallet: Wallet,
  payer: string,
  terms: MandateTerms,
  amount: bigint,
): Promise<boolean> {
  try {
    await walletRequest(wallet, 'approval check', 'eth_call', [
      { from: payer, to: terms.token, data: approveCalldata(terms.charger, amount) },
      'latest',
    ]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lets the charging contract take up to `total` of the token from `payer` (ERC-20 `approve`), unless it already
 * may: the wallet sends the transaction and the page waits until it is mined. When an allowance below `total` is
 * there and the token refuses to change it (USDT's rule), the allowance is first set to 0, a transaction of its own.
 */
export async function approveCharger(
  wallet: Wallet,
  payer: string,
  terms: MandateTerms,
  total: bigint,
  onStep: (text: string) => void,
): Promise<void> {
  await readyWallet(wallet, payer, terms.chainId, 'to approve the charges', onStep);
  onStep('Reading the allowance…');
  const allowance = await allowanceOf(wallet, payer, terms);
  if (allowance !== null && allowance >= total) return;
  const approve = async (amount: bigint, step: string): Promise<void> => {
    onStep(step);
    const data = approveCalldata(terms.charger, amount);
    const hash = await sendTransaction(wallet, 'approval', { from: payer, to: terms.token, data });
    await waitForPayment(wallet, hash, 1, onStep, 'approval');
  };
  if (allowance !== null && allowance > 0n && !(await approvalWouldPass(wallet, payer, terms, total))) {
    await approve(
      0n,
      `This token changes an allowance only from 0: confirm setting the current ${formatAmount(allowance.toString(), terms.decimals, terms.symbol)} to 0 in your wallet…`,
    );
  }
  await approve(
    total,
    `Confirm the approval of ${formatAmount(total.toString(), terms.decimals, terms.symbol)} in your wallet…`,
  );
}

/**
 * Ends a mandate on chain: the payer sends the charging contract's `revoke(mandateHash)` (selector 0xb75c7dc6), after
 * which nobody can charge it, and the page waits until it is mined.
 */
export async function revokeMandate(
  wallet: Wallet,
  payer: string,
  terms: Pick<MandateTerms, 'chainId' | 'charger'>,
  mandateHash: string,
  onStep: (text: string) => void,
): Promise<void> {
  await readyWallet(wallet, payer, terms.chainId, 'to revoke the authorization', onStep);
  onStep('Confirm revoking the authorization on chain in your wallet…');
  const data = `0xb75c7dc6${mandateHash.slice(2)}`;
  const hash = await sendTransaction(wallet, 'revocation', { from: payer, to: terms.charger, data });
  await waitForPayment(wallet, hash, 1, onStep, 'revocation');
}

/** The payer's EIP-712 signature of `mandate` for the charging contract (`eth_signTypedData_v4`). */
export async function signMandate(
  wallet: Wallet,
  payer: string,
  terms: MandateTerms,
  mandate: Mandate,
  onStep: (text: string) => void,
): Promise<string> {
  await readyWallet(wallet, payer, terms.chainId, 'to sign', onStep);
  onStep('Sign the authorization in your wallet…');
  const typedData = {
    types: TYPED_DATA_TYPES,
    primaryType: 'Mandate',
    domain: {
      name: 'Tollgate Charger',
      version: '1',
      chainId: terms.chainId,
      verifyingContract: terms.charger,
    },
    message: mandate,
  };
  const signature = await walletRequest(wallet, 'signature', 'eth_signTypedData_v4', [
    payer,
    JSON.stringify(typedData),
  ]);
  if (typeof signature !== 'string') throw new WalletError('The wallet returned no signature.');
  return signature;
}
