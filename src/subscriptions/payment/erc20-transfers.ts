import { toEventSelector, type Hex } from 'viem';
import type { PaymentCredit } from './payment-gateway.js';
import { PaymentErrors } from './payment.errors.js';

const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');

/** Above this many periods a payment is refused: its period end would leave the range a date can hold. */
export const MAX_PERIODS_PER_PAYMENT = 10_000;

/** The parts of a transaction receipt the check reads (viem's receipt has them). */
export interface PaymentReceipt {
  status: 'success' | 'reverted' | null;
  blockNumber: bigint;
  logs: ReadonlyArray<{ address: string; topics: readonly Hex[]; data: Hex; logIndex: number }>;
}

export interface PaymentRules {
  chainId: number;
  /** Lowercase. */
  token: string;
  /** Lowercase. */
  receiver: string;
  pricePerPeriod: bigint;
  requiredConfirmations: number;
  /** Lowercase wallets a transfer may come from. */
  allowedPayers: readonly string[];
}

interface Transfer {
  token: string;
  from: string;
  to: string;
  value: bigint;
  logIndex: number;
}

/**
 * ERC-20 `Transfer(address indexed, address indexed, uint256)` logs. ERC-721's `Transfer` has the same topic but
 * indexes its third argument (four topics, no data): it is not a payment and is left out.
 */
function transfers(receipt: PaymentReceipt): Transfer[] {
  return receipt.logs
    .filter((log) => log.topics[0] === TRANSFER_TOPIC && log.topics.length === 3 && log.data.length === 66)
    .map((log) => ({
      token: log.address.toLowerCase(),
      from: `0x${log.topics[1]!.slice(26)}`.toLowerCase(),
      to: `0x${log.topics[2]!.slice(26)}`.toLowerCase(),
      value: BigInt(log.data),
      logIndex: log.logIndex,
    }));
}

/**
 * Decides what a mined transaction pays, in the order docs/payments.md gives: it must have succeeded, hold a
 * transfer of the token, to the receiver, from an allowed payer, of at least the price, and have the required
 * confirmations; the first rule broken is the refusal. Returns every qualifying transfer (in log order) as a
 * credit of floor(value / price) periods: each can be credited once.
 */
export function creditsOfReceipt(
  txHash: string,
  receipt: PaymentReceipt,
  confirmations: number,
  rules: PaymentRules,
): PaymentCredit[] {
  if (receipt.status !== 'success') throw PaymentErrors.reverted(txHash);
  const ofToken = transfers(receipt).filter((transfer) => transfer.token === rules.token);
  if (ofToken.length === 0) throw PaymentErrors.wrongToken(rules.token);
  const toReceiver = ofToken.filter((transfer) => transfer.to === rules.receiver);
  if (toReceiver.length === 0) throw PaymentErrors.wrongReceiver(rules.receiver);
  const fromPayer = toReceiver.filter((transfer) => rules.allowedPayers.includes(transfer.from));
  if (fromPayer.length === 0) {
    throw PaymentErrors.wrongPayer([...new Set(toReceiver.map((t) => t.from))], [...rules.allowedPayers]);
  }
  const enough = fromPayer.filter((transfer) => transfer.value >= rules.pricePerPeriod);
  if (enough.length === 0) {
    const largest = fromPayer.reduce((max, t) => (t.value > max ? t.value : max), 0n);
    throw PaymentErrors.insufficient(largest, rules.pricePerPeriod);
  }
  if (confirmations < rules.requiredConfirmations) {
    throw PaymentErrors.notConfirmed(Math.max(confirmations, 0), rules.requiredConfirmations);
  }
  return enough.map((transfer) => {
    const periods = transfer.value / rules.pricePerPeriod;
    if (periods > BigInt(MAX_PERIODS_PER_PAYMENT)) throw PaymentErrors.tooLarge(MAX_PERIODS_PER_PAYMENT);
    return {
      periods: Number(periods),
      amountMinor: transfer.value,
      transfer: {
        chainId: rules.chainId,
        token: transfer.token,
        payer: transfer.from,
        txHash: txHash.toLowerCase(),
        logIndex: transfer.logIndex,
      },
    };
  });
}
