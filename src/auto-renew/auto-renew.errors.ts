import { HttpStatus } from '@nestjs/common';
import { ApiError, type ErrorDetails } from '../common/errors/api-error.js';

const wrong = (code: string, message: string, details?: ErrorDetails) =>
  ApiError.badRequest(code, message, details);

export const AutoRenewErrors = {
  unavailable: (why: string) =>
    ApiError.badRequest('auto_renew_unavailable', `Automatic renewal is not offered here: ${why}`),
  subscriptionNotActive: () =>
    ApiError.conflict(
      'subscription_not_active',
      'Automatic renewal continues a subscription in force: renew it first (POST /subscriptions/renew)',
    ),
  mandateRequired: () =>
    wrong(
      'mandate_required',
      'Send the signed mandate (`mandate` and `signature`): GET /subscriptions/plan has its terms',
    ),
  mandateNotExpected: () =>
    wrong('mandate_not_expected', 'Under PAYMENT_GATEWAY=free nothing is signed: send `{}` or `{"periods"}`'),
  wrongPayer: (expected: string) =>
    wrong('mandate_wrong_payer', `The mandate's payer must be the subscription's wallet ${expected}`, {
      expected,
    }),
  wrongToken: (expected: string) =>
    wrong('mandate_wrong_token', `The mandate's token must be ${expected}`, { expected }),
  wrongPayee: (expected: string) =>
    wrong('mandate_wrong_payee', `The mandate's payee must be ${expected}`, { expected }),
  wrongAmount: (expected: string) =>
    wrong('mandate_wrong_amount', `The mandate's amount must be the plan's price per period, ${expected}`, {
      expected,
    }),
  wrongPeriod: (expected: number) =>
    wrong('mandate_wrong_period', `The mandate's periodSeconds must be the plan's period, ${expected}`, {
      expected,
    }),
  wrongStart: (expected: number) =>
    wrong(
      'mandate_wrong_start',
      `The mandate's start must be the subscription's current period end, ${expected} (unix seconds)`,
      { expected },
    ),
  badSignature: (chainId: number, charger: string) =>
    wrong(
      'mandate_bad_signature',
      "The signature is not the payer's over this mandate, as EIP-712 typed data for the charging contract " +
        `${charger} on chain ${chainId} (a 65-byte signature from an ordinary wallet; ERC-1271 or ERC-6492 from a ` +
        'smart wallet)',
      { chainId, charger },
    ),
  mandateInUse: () =>
    ApiError.conflict('mandate_in_use', 'This mandate was registered before: sign a new one (another salt)'),
  notEnabled: () =>
    ApiError.notFound('auto_renew_not_enabled', 'The subscription has no automatic renewal enabled'),
  nothingToRetry: () =>
    ApiError.conflict('auto_renew_nothing_to_retry', 'No failed charge is waiting: nothing to retry'),
  chainUnavailable: () =>
    new ApiError(
      HttpStatus.SERVICE_UNAVAILABLE,
      'auto_renew_chain_unavailable',
      'The chain could not be reached to check the mandate: nothing was registered; retry later',
    ),
};
