import { type Address, hashTypedData, type Hex, type TypedDataDomain } from 'viem';
import { chargerAbi } from './charger-abi.js';

export { chargerAbi };

/**
 * A payer's standing authorization for the charging contract (contracts/TollgateCharger.sol): `amount` of `token`
 * from `payer` to `payee` once per period, period `i` beginning at `start + i * periodSeconds` (unix seconds) for
 * `i` from 0 to `periods - 1`. `salt` tells apart two mandates with the same terms.
 */
export interface Mandate {
  payer: Address;
  token: Address;
  payee: Address;
  /** Token units (smallest unit) per period. */
  amount: bigint;
  periodSeconds: bigint;
  /** Unix seconds at which period 0 begins. */
  start: bigint;
  periods: bigint;
  salt: Hex;
}

/** The EIP-712 types of a mandate, in the field order the contract's MANDATE_TYPEHASH names them. */
export const mandateTypes = {
  Mandate: [
    { name: 'payer', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'payee', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'periodSeconds', type: 'uint256' },
    { name: 'start', type: 'uint256' },
    { name: 'periods', type: 'uint256' },
    { name: 'salt', type: 'bytes32' },
  ],
} as const;

/** The EIP-712 domain of the charging contract deployed at `charger` on chain `chainId`. */
export function mandateDomain(chainId: number, charger: Address): TypedDataDomain {
  return { name: 'Tollgate Charger', version: '1', chainId, verifyingContract: charger };
}

/** Everything a wallet signs (viem's `signTypedData`, or `eth_signTypedData_v4` once serialized). */
export function mandateTypedData(mandate: Mandate, chainId: number, charger: Address) {
  return {
    domain: mandateDomain(chainId, charger),
    types: mandateTypes,
    primaryType: 'Mandate',
    message: mandate,
  } as const;
}

/**
 * The mandate's EIP-712 digest: what the payer signs, and the `mandateHash` of the contract's `charged`,
 * `revoked`, `Charged` and `Revoked` (its `hashMandate` gives the same).
 */
export function mandateHash(mandate: Mandate, chainId: number, charger: Address): Hex {
  return hashTypedData(mandateTypedData(mandate, chainId, charger));
}

/** Unix seconds from which period `index` of the mandate can be charged. */
export function periodStart(mandate: Mandate, index: bigint): bigint {
  return mandate.start + index * mandate.periodSeconds;
}

/** Why a charge cannot be made, as the keeper reports it. */
export type ChargeRefusal =
  | 'insufficient_allowance'
  | 'insufficient_balance'
  | 'mandate_revoked'
  | 'mandate_ended'
  | 'period_not_started'
  | 'already_charged'
  | 'bad_signature'
  | 'invalid_mandate'
  | 'transfer_failed';

/**
 * The charging contract's custom errors by name (viem's `ContractFunctionRevertedError.data.errorName` from a
 * simulated `charge`). The allowance and balance are checked by the contract before the transfer, so a shortfall
 * is told apart from the token's own revert and carries the figures (`args`: held, needed).
 */
export const chargeRefusals = {
  InsufficientAllowance: 'insufficient_allowance',
  InsufficientBalance: 'insufficient_balance',
  MandateRevoked: 'mandate_revoked',
  MandateEnded: 'mandate_ended',
  PeriodNotStarted: 'period_not_started',
  AlreadyCharged: 'already_charged',
  BadSignature: 'bad_signature',
  InvalidMandate: 'invalid_mandate',
  TransferFailed: 'transfer_failed',
} as const satisfies Record<Extract<(typeof chargerAbi)[number], { type: 'error' }>['name'], ChargeRefusal>;
