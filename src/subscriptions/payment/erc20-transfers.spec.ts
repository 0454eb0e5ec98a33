import { encodeAbiParameters, pad, toEventSelector, type Hex } from 'viem';
import { ApiError } from '../../common/errors/api-error.js';
import {
  creditsOfReceipt,
  MAX_PERIODS_PER_PAYMENT,
  type PaymentReceipt,
  type PaymentRules,
} from './erc20-transfers.js';

const TRANSFER = toEventSelector('Transfer(address,address,uint256)');
const TOKEN = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const OTHER_TOKEN = '0x1111111111111111111111111111111111111111';
const RECEIVER = '0x52908400098527886e0f7030069857d2e4169ee7';
const PAYER = '0x2222222222222222222222222222222222222222';
const STRANGER = '0x3333333333333333333333333333333333333333';
const TX = `0x${'ab'.repeat(32)}`;

const rules: PaymentRules = {
  chainId: 8453,
  token: TOKEN,
  receiver: RECEIVER,
  pricePerPeriod: 100n,
  requiredConfirmations: 2,
  allowedPayers: [PAYER],
};

interface LogSpec {
  token?: string;
  from?: string;
  to?: string;
  value: bigint;
}

const transferLog = ({ token = TOKEN, from = PAYER, to = RECEIVER, value }: LogSpec, logIndex: number) => ({
  address: token,
  topics: [TRANSFER, pad(from as Hex), pad(to as Hex)] as Hex[],
  data: encodeAbiParameters([{ type: 'uint256' }], [value]),
  logIndex,
});

const receipt = (logs: LogSpec[], status: PaymentReceipt['status'] = 'success'): PaymentReceipt => ({
  status,
  blockNumber: 10n,
  logs: logs.map(transferLog),
});

function refusal(run: () => unknown): { status: number; code: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.getStatus(), code: error.code };
    throw error;
  }
  throw new Error('not refused');
}

describe('creditsOfReceipt', () => {
  it('credits a transfer of the price as one period, with its reference', () => {
    expect(creditsOfReceipt(TX, receipt([{ value: 100n }]), 2, rules)).toEqual([
      {
        periods: 1,
        amountMinor: 100n,
        transfer: { chainId: 8453, token: TOKEN, payer: PAYER, txHash: TX, logIndex: 0 },
      },
    ]);
  });

  it('buys floor(amount / price) periods', () => {
    expect(creditsOfReceipt(TX, receipt([{ value: 299n }]), 5, rules)[0]).toMatchObject({
      periods: 2,
      amountMinor: 299n,
    });
  });

  it('returns every qualifying transfer in log order, skipping the others', () => {
    const credits = creditsOfReceipt(
      TX,
      receipt([{ value: 100n }, { to: STRANGER, value: 500n }, { value: 50n }, { value: 300n }]),
      2,
      rules,
    );
    expect(credits.map((credit) => [credit.transfer?.logIndex, credit.periods])).toEqual([
      [0, 1],
      [3, 3],
    ]);
  });

  it('ignores an ERC-721 Transfer (its third argument indexed) of the token', () => {
    const nft = {
      ...transferLog({ value: 0n }, 0),
      topics: [TRANSFER, pad(PAYER), pad(RECEIVER), pad('0x64')] as Hex[],
      data: '0x' as Hex,
    };
    expect(
      refusal(() => creditsOfReceipt(TX, { status: 'success', blockNumber: 1n, logs: [nft] }, 2, rules)),
    ).toEqual({
      status: 402,
      code: 'payment_wrong_token',
    });
  });

  it.each<[string, PaymentReceipt, number, { status: number; code: string }]>([
    ['reverted', receipt([], 'reverted'), 5, { status: 402, code: 'payment_reverted' }],
    ['without a status', receipt([{ value: 100n }], null), 5, { status: 402, code: 'payment_reverted' }],
    ['without any transfer', receipt([]), 5, { status: 402, code: 'payment_wrong_token' }],
    [
      'of another token',
      receipt([{ token: OTHER_TOKEN, value: 100n }]),
      5,
      { status: 402, code: 'payment_wrong_token' },
    ],
    [
      'to another address',
      receipt([{ to: STRANGER, value: 100n }]),
      5,
      { status: 402, code: 'payment_wrong_receiver' },
    ],
    [
      'from another wallet',
      receipt([{ from: STRANGER, value: 100n }]),
      5,
      { status: 402, code: 'payment_wrong_payer' },
    ],
    ['of too little', receipt([{ value: 99n }]), 5, { status: 402, code: 'payment_insufficient' }],
    ['not confirmed enough', receipt([{ value: 100n }]), 1, { status: 409, code: 'payment_not_confirmed' }],
    [
      'of too many periods',
      receipt([{ value: 100n * BigInt(MAX_PERIODS_PER_PAYMENT + 1) }]),
      5,
      { status: 402, code: 'payment_too_large' },
    ],
  ])('refuses a transaction %s', (_case, given, confirmations, expected) => {
    expect(refusal(() => creditsOfReceipt(TX, given, confirmations, rules))).toEqual(expected);
  });

  it('names the first rule broken: a wrong token before a wrong receiver, confirmations last', () => {
    expect(
      refusal(() =>
        creditsOfReceipt(TX, receipt([{ token: OTHER_TOKEN, to: STRANGER, value: 1n }]), 0, rules),
      ),
    ).toMatchObject({ code: 'payment_wrong_token' });
    expect(refusal(() => creditsOfReceipt(TX, receipt([{ value: 1n }]), 0, rules))).toMatchObject({
      code: 'payment_insufficient',
    });
  });

  it('marks only the refusals that may change with time as retryable', () => {
    const errorOf = (run: () => unknown): ApiError => {
      try {
        run();
      } catch (error) {
        return error as ApiError;
      }
      throw new Error('not refused');
    };
    expect(errorOf(() => creditsOfReceipt(TX, receipt([{ value: 100n }]), 1, rules)).retryable).toBe(true);
    expect(errorOf(() => creditsOfReceipt(TX, receipt([{ value: 99n }]), 5, rules)).retryable).toBe(false);
  });
});
