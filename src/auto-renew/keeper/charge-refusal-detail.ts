import { formatUnits } from 'viem';
import type { ChargeRefusal } from '../mandate.js';

/** The token's symbol and decimals, for amounts a person reads. */
export interface TokenUnits {
  symbol: string;
  decimals: number;
}

/** A refusal with what a person needs to act on it, and whether trying again can succeed under the same mandate. */
export interface RefusalDetail {
  detail: string;
  retryable: boolean;
}

/** `5000000` of a 6-decimal `USDC` as `5 USDC`; exact (viem's string arithmetic, no floating point). */
export function tokenAmount(value: bigint, units: TokenUnits | undefined): string {
  return units ? `${formatUnits(value, units.decimals)} ${units.symbol}` : `${value} (smallest units)`;
}

/**
 * What the charging contract's refusal means for the payer: the figures its error carries (`args`, in the order of
 * the error's declaration in contracts/TollgateCharger.sol) in the token's units.
 */
export function refusalDetail(
  refusal: ChargeRefusal,
  args: readonly unknown[],
  units: TokenUnits | undefined,
  periodIndex: bigint,
): RefusalDetail {
  const figure = (index: number): bigint => (typeof args[index] === 'bigint' ? (args[index] as bigint) : 0n);
  switch (refusal) {
    case 'insufficient_allowance':
      return {
        detail:
          `allowance is ${tokenAmount(figure(0), units)}, the period costs ${tokenAmount(figure(1), units)}: ` +
          `approve the charging contract for at least ${tokenAmount(figure(1), units)}, then retry`,
        retryable: true,
      };
    case 'insufficient_balance':
      return {
        detail:
          `balance is ${tokenAmount(figure(0), units)}, the period costs ${tokenAmount(figure(1), units)}: ` +
          `add at least ${tokenAmount(figure(1) - figure(0), units)} to the wallet, then retry`,
        retryable: true,
      };
    case 'period_not_started':
      return {
        detail: `period ${periodIndex} can be charged from ${new Date(Number(figure(0)) * 1000).toISOString()}`,
        retryable: true,
      };
    case 'mandate_ended':
      return {
        detail:
          `the authorization covers ${figure(0)} periods (0 to ${figure(0) - 1n}); period ${periodIndex} is past its ` +
          'end: sign a new one to go on renewing automatically',
        retryable: false,
      };
    case 'mandate_revoked':
      return {
        detail: 'the payer revoked the authorization: sign a new one to renew automatically again',
        retryable: false,
      };
    case 'already_charged':
      return { detail: `period ${periodIndex} has already been charged`, retryable: false };
    case 'bad_signature':
      return {
        detail:
          "the authorization's signature is not the payer's (a smart wallet must be deployed and accept it): " +
          'sign a new one from the paying wallet',
        retryable: false,
      };
    case 'invalid_mandate':
      return {
        detail: 'the authorization is malformed (no period length, or no token contract): sign a new one',
        retryable: false,
      };
    case 'transfer_failed':
      return {
        detail:
          'the token refused the transfer (paused, or this wallet blocked by it): retry once it accepts transfers',
        retryable: true,
      };
  }
}
