import { erc20Abi, type Hex, type Log, parseEventLogs } from 'viem';
import type { ChargeTransfer } from './charge-executor.js';
import type { Mandate } from './mandate.js';

/** The terms of a mandate that name its transfer. */
export type TransferTerms = Pick<Mandate, 'token' | 'payer' | 'payee' | 'amount'>;

/**
 * The log index of a charge's token transfer (payer to payee, the mandate's amount, by its token) among a
 * transaction receipt's logs; undefined when there is none. Shared by the keeper (its own charges, and a period
 * someone else charged) and the Charged-log follower.
 */
export function chargeTransferLogIndex(terms: TransferTerms, logs: readonly Log[]): number | undefined {
  const { token, payer, payee, amount } = terms;
  const transfer = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: [...logs] }).find(
    (log) =>
      log.address.toLowerCase() === token.toLowerCase() &&
      log.args.from.toLowerCase() === payer.toLowerCase() &&
      log.args.to.toLowerCase() === payee.toLowerCase() &&
      log.args.value === amount,
  );
  return transfer?.logIndex ?? undefined;
}

/** The transfer a charge made, as a payment cites it (addresses and hash lowercase). */
export function chargeTransfer(
  chainId: number,
  terms: Pick<Mandate, 'token' | 'payer'>,
  txHash: Hex | string,
  logIndex: number,
): ChargeTransfer {
  return {
    chainId,
    token: terms.token.toLowerCase(),
    payer: terms.payer.toLowerCase(),
    txHash: txHash.toLowerCase(),
    logIndex,
  };
}
