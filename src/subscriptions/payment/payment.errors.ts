import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error.js';

const refused = (code: string, message: string, details?: Record<string, unknown>): ApiError =>
  new ApiError(HttpStatus.PAYMENT_REQUIRED, code, message, details);

/**
 * Why a renewal's payment was refused (docs/payments.md). 402 when the cited payment does not pay, 409 when it did
 * but cannot be credited (again, or yet), 503 when the chain could not be asked: nothing is credited in every case.
 * `payment_not_found` and `payment_not_confirmed` may change with time, so an Idempotency-Key is not kept for them.
 */
export const PaymentErrors = {
  operatorOnly: (address: string) =>
    new ApiError(
      HttpStatus.FORBIDDEN,
      'renewal_operator_only',
      'Renewals are billed by the operator (PAYMENT_GATEWAY=operator): ask the operator to renew this subscription',
      { gateway: 'operator', address },
    ),
  notExpected: (gateway: string) =>
    ApiError.badRequest(
      'payment_not_expected',
      `This service does not take payments with renew (PAYMENT_GATEWAY=${gateway}); nothing was credited`,
      { gateway },
    ),
  required: () =>
    refused(
      'payment_required',
      'Renewals are paid on chain: send the price to the receiving address, then renew with {"payment": {"txHash"}}',
      { gateway: 'erc20' },
    ),
  notFound: (txHash: string) =>
    new ApiError(
      HttpStatus.PAYMENT_REQUIRED,
      'payment_not_found',
      'No mined transaction with this hash on the payment chain (yet): retry once it is mined',
      { txHash },
      { retryable: true },
    ),
  reverted: (txHash: string) =>
    refused('payment_reverted', 'The transaction failed (reverted) on chain: it paid nothing', { txHash }),
  wrongToken: (token: string) =>
    refused('payment_wrong_token', 'The transaction holds no transfer of the payment token', { token }),
  wrongReceiver: (receiver: string) =>
    refused(
      'payment_wrong_receiver',
      'The transaction transfers the payment token, but not to the receiving address',
      { receiver },
    ),
  wrongPayer: (payers: string[], allowed: string[]) =>
    refused(
      'payment_wrong_payer',
      "The transfer was sent from another wallet than the subscription's (or, for an operator, the operator's own)",
      { payers, allowed },
    ),
  insufficient: (amount: bigint, pricePerPeriod: bigint) =>
    refused('payment_insufficient', 'The transfer is less than the price of one period', {
      amount: amount.toString(),
      pricePerPeriod: pricePerPeriod.toString(),
    }),
  tooLarge: (maxPeriods: number) =>
    refused(
      'payment_too_large',
      `The transfer pays for more than ${maxPeriods} periods at once: ask the operator to credit it`,
      { maxPeriods },
    ),
  notConfirmed: (confirmations: number, required: number) =>
    new ApiError(
      HttpStatus.CONFLICT,
      'payment_not_confirmed',
      `The transaction has ${confirmations} of the ${required} confirmations required: retry once it has them`,
      { confirmations, required },
      { retryable: true },
    ),
  alreadyUsed: (txHash: string) =>
    ApiError.conflict(
      'payment_already_used',
      'This transfer has already been credited to a renewal: each transfer pays once',
      { txHash },
    ),
  chainUnavailable: () =>
    new ApiError(
      HttpStatus.SERVICE_UNAVAILABLE,
      'payment_chain_unavailable',
      'The payment chain could not be reached: nothing was credited; retry later',
    ),
  chainMismatch: () =>
    new ApiError(
      HttpStatus.SERVICE_UNAVAILABLE,
      'payment_chain_mismatch',
      'The payment chain endpoint serves another chain than the configured one: nothing was credited',
    ),
};
