import { ApiProperty } from '@nestjs/swagger';
import { PAYMENT_GATEWAYS } from '../../config/settings.js';
import { SUBSCRIPTION_EVENT_TYPES, type SubscriptionEventType } from '../subscription-event.entity.js';
import type { SubscriptionStatus } from '../subscription-state.js';

const ADDRESS_EXAMPLE = '0x52908400098527886E0F7030069857D2E4169EE7';

/** A plan as the subscription object names it. */
export class SubscriptionPlanDto {
  @ApiProperty({
    example: 'pro',
    description: "The plan id (`GET /plans/{id}`); `default` is the settings' plan.",
  })
  id: string;

  @ApiProperty({ example: 'Pro' })
  name: string;
}

/** A change of plan scheduled for the end of the current period. */
export class PendingPlanDto extends SubscriptionPlanDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2026-12-22T01:30:00.000Z',
    description: 'When it takes effect.',
  })
  effectiveAt: string;
}

/** Why the latest automatic charge failed, for a person to act on. */
export class AutoRenewFailureDto {
  @ApiProperty({
    enum: [
      'insufficient_allowance',
      'insufficient_balance',
      'mandate_revoked',
      'mandate_ended',
      'terms_changed',
      'chain_unavailable',
      'bad_signature',
      'invalid_mandate',
      'transfer_failed',
    ],
    example: 'insufficient_allowance',
    description:
      'What stood in the way (more may be added): the allowance or the balance is short, the payer revoked the ' +
      'mandate or it ran out of periods, the plan or the settings changed so that the mandate no longer matches ' +
      'them, or the chain could not be reached.',
  })
  reason: string;

  @ApiProperty({
    example:
      'The allowance is 2 USDC and the period costs 5 USDC: approve the charging contract for at least 5 USDC.',
    description: 'The same in words, with what to do.',
  })
  message: string;

  @ApiProperty({ format: 'date-time', example: '2026-12-22T01:25:00.000Z' })
  at: string;
}

/** The automatic renewal of a subscription (`POST /subscriptions/auto-renew`). */
export class AutoRenewDto {
  @ApiProperty({ example: true, description: 'Whether the subscription renews itself at its period end.' })
  enabled: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-22T01:25:00.000Z',
    description:
      'When the next charge is attempted (AUTO_RENEW_LEAD_SECONDS before the period end, or the next retry of a ' +
      'failed one); null when not enabled.',
  })
  nextChargeAt: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '5000000',
    description:
      "Amount of each charge, in the token's smallest unit, as a decimal string (`0` under `free`).",
  })
  amount: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    description: 'The ERC-20 contract charged (EIP-55); null under `free`.',
  })
  token: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2027-11-22T01:30:00.000Z',
    description:
      "The end of the mandate's last period: no charge is made for a period starting then or later.",
  })
  endsAt: string | null;

  @ApiProperty({
    required: false,
    example: '3000000',
    description:
      'Present when the allowance the charging contract holds, as last read (at registration and after each ' +
      "charge), is short of one period's amount: " +
      'how much more to approve, in the smallest unit.',
  })
  allowanceShortfall?: string;

  @ApiProperty({
    required: false,
    pattern: '^0x[0-9a-f]{64}$',
    example: '0x4f3c2b1a09e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2',
    description:
      'Under `erc20`, while enabled: the EIP-712 digest of the signed mandate, which names it on chain. Disabling ' +
      "stops Tollgate's charges only; to make the mandate unusable by anyone, the payer sends " +
      '`revoke(mandateHash)` to the charging contract (`GET /subscriptions/plan`, `autoRenew.charger`).',
  })
  mandateHash?: string;

  @ApiProperty({
    type: AutoRenewFailureDto,
    nullable: true,
    description: 'Why the latest charge failed, while it is being retried; null otherwise.',
  })
  failure: AutoRenewFailureDto | null;
}

/** The subscription object: returned by status, renew and cancel. */
export class SubscriptionDto {
  @ApiProperty({ example: ADDRESS_EXAMPLE, description: 'The wallet, in EIP-55 checksum form.' })
  address: string;

  @ApiProperty({
    enum: ['none', 'trialing', 'active', 'past_due', 'canceled', 'expired'],
    example: 'active',
    description:
      '`none`: never subscribed. `trialing` (addition): in a free trial, now is before `trialEnd`; `active` is true ' +
      'and the features are in force. `active`: now is before `currentPeriodEnd` (possibly with `cancelAtPeriodEnd`). ' +
      '`past_due` (addition): the automatic charge of the next period failed and is being retried ' +
      '(`autoRenew.failure` says why), or is still waiting for the chain (`autoRenew.failure` null); the ' +
      'subscription stays in force (`active` true, features on) until `graceEndsAt`, then expires unless paid. ' +
      '`canceled`: ended by a cancel (immediate, or the period ran out after one). `expired`: the period ran out ' +
      'without a cancel. Computed when read, from the timestamps.',
  })
  status: SubscriptionStatus;

  @ApiProperty({
    example: true,
    description: 'Whether the subscription is in force now (`status` is `active`, `trialing` or `past_due`).',
  })
  active: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T01:30:00.000Z' })
  currentPeriodStart: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-22T01:30:00.000Z',
    description: 'The first instant no longer covered.',
  })
  currentPeriodEnd: string | null;

  @ApiProperty({
    example: false,
    description: 'The holder cancelled: the paid period runs to its end and is then not renewed.',
  })
  cancelAtPeriodEnd: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'When the latest cancel was accepted; cleared by a renewal.',
  })
  canceledAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T01:30:00.000Z' })
  createdAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T01:30:00.000Z' })
  updatedAt: string | null;

  @ApiProperty({
    type: SubscriptionPlanDto,
    description:
      'The plan of the current (or last) period (addition); `default`, the plan the settings define, when the ' +
      'wallet never chose one or never subscribed.',
  })
  plan: SubscriptionPlanDto;

  @ApiProperty({
    type: String,
    isArray: true,
    example: ['api.calls', 'export.csv'],
    description:
      "The entitlements in force now (addition): the plan's features while `active` is true (`active` or " +
      '`trialing`), else empty.',
  })
  features: string[];

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description:
      'The end of the free trial the current period began with, if it did (addition): `trialing` until then. A ' +
      'renewal during the trial starts the paid period at this instant; a cancel now ends the trial with the period; ' +
      'a fresh period after a lapse has none (null).',
  })
  trialEnd: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description:
      'While `past_due` (addition; a failed charge, or one waiting for the chain): the end of the grace ' +
      '(SUBSCRIPTION_GRACE_HOURS after the period end). The ' +
      'features stay on until then; a successful charge or a renewal before it recovers the subscription from its ' +
      'period end, and at it the subscription expires with `reason: "payment_failed"`. Null otherwise.',
  })
  graceEndsAt: string | null;

  @ApiProperty({
    type: PendingPlanDto,
    nullable: true,
    description: 'A change of plan scheduled for the end of the current period (addition); null when none.',
  })
  pendingPlan: PendingPlanDto | null;

  @ApiProperty({
    type: AutoRenewDto,
    description: 'Automatic renewal (addition): `enabled` false and the rest null when none is registered.',
  })
  autoRenew: AutoRenewDto;
}

/** The payment a renewal recorded, in `GET /subscriptions/history`. */
export class PaymentDto {
  @ApiProperty({
    pattern: '^[a-z][a-z0-9_]{0,31}$',
    example: 'erc20',
    description:
      'The gateway that approved it (`PAYMENT_GATEWAY` at the time: `free`, `operator` or `erc20`), or the source ' +
      'that credited the periods without a payment through a gateway (a feature of the service, e.g. a coupon), ' +
      'with amount `0`.',
  })
  gateway: string;

  @ApiProperty({
    example: '5000000',
    description:
      "Amount paid, in the token's smallest unit, as a decimal string; `0` for `free`, `operator` and a credit from another source.",
  })
  amount: string;

  @ApiProperty({ type: Number, nullable: true, example: 8453, description: 'Chain of an on-chain payment.' })
  chainId: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    description: 'The ERC-20 contract paid in (EIP-55).',
  })
  token: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: ADDRESS_EXAMPLE,
    description: 'The wallet the transfer came from (EIP-55).',
  })
  payer: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  })
  txHash: string | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0,
    description: "The transfer's log in the receipt.",
  })
  logIndex: number | null;
}

/** The plans of a plan entry of the history. */
export class PlanChangeDto {
  @ApiProperty({ example: 'basic', description: 'The plan it changed (or was to change) from.' })
  from: string;

  @ApiProperty({
    example: 'pro',
    description: 'The plan it changed (or was to change, or no longer changes) to.',
  })
  to: string;
}

/** One entry of `GET /subscriptions/history`. */
export class SubscriptionEventDto {
  @ApiProperty({ format: 'uuid', example: '5f0c6f0e-3c1b-4a51-9a7c-3f9b1d2e8a41' })
  id: string;

  @ApiProperty({
    enum: SUBSCRIPTION_EVENT_TYPES,
    example: 'renewed',
    description:
      'Additions: `payment_failed` (an automatic charge failed; the subscription is `past_due`), `plan_changed` (a ' +
      'change of plan took effect: at once, or at the period end it was scheduled for), `plan_scheduled` (a change ' +
      'to a plan as dear or cheaper per second was scheduled for the period end), `plan_unscheduled` (a scheduled ' +
      'change was dropped). Each plan entry carries `planChange`.',
  })
  type: SubscriptionEventType;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T01:30:00.000Z',
    description: 'When it took effect; for `expired`, the end of the period that ran out.',
  })
  at: string;

  @ApiProperty({
    example: ADDRESS_EXAMPLE,
    description: 'The wallet (EIP-55) whose session or API key asked for it, or `system` for an expiry.',
  })
  actor: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'The period end before the change; null for the first renewal.',
  })
  previousPeriodEnd: string | null;

  @ApiProperty({
    format: 'date-time',
    example: '2026-12-22T01:30:00.000Z',
    description: 'The period end after it.',
  })
  currentPeriodEnd: string;

  @ApiProperty({
    type: PaymentDto,
    nullable: true,
    description:
      'What paid for a renewal; null for cancels, expiries and renewals recorded before payments were linked.',
  })
  payment: PaymentDto | null;

  @ApiProperty({
    type: PlanChangeDto,
    nullable: true,
    description:
      'For `plan_changed`, `plan_scheduled` and `plan_unscheduled` (addition): the plans; else null.',
  })
  planChange: PlanChangeDto | null;
}

/** The `erc20` terms in `GET /subscriptions/plan`. */
export class Erc20PlanDto {
  @ApiProperty({ example: 8453, description: 'The chain to pay on (PAYMENT_CHAIN_ID).' })
  chainId: number;

  @ApiProperty({
    example: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    description: 'The ERC-20 contract (EIP-55).',
  })
  token: string;

  @ApiProperty({ example: 'USDC', description: "The token's symbol, as its contract reports it." })
  symbol: string;

  @ApiProperty({ example: 6, description: "The token's decimals, as its contract reports them." })
  decimals: number;

  @ApiProperty({ example: ADDRESS_EXAMPLE, description: 'Where to send the payment (EIP-55).' })
  receiver: string;

  @ApiProperty({
    example: '5000000',
    description:
      "Price of one period in the token's smallest unit, as a decimal string. A transfer buys floor(amount / price) periods.",
  })
  pricePerPeriod: string;

  @ApiProperty({ example: 3, description: 'Confirmations a payment needs before it is credited.' })
  confirmations: number;
}

/** What a client needs to build the EIP-712 mandate of automatic renewal (`POST /subscriptions/auto-renew`). */
export class AutoRenewTermsDto {
  @ApiProperty({
    enum: ['free', 'erc20'],
    example: 'erc20',
    description:
      '`free`: register with `{}`, renewed with zero payments. `erc20`: sign a mandate with these terms.',
  })
  gateway: 'free' | 'erc20';

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 8453,
    description: "The EIP-712 domain's `chainId`.",
  })
  chainId: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    description:
      "The charging contract: the domain's `verifyingContract`, and the spender to approve (EIP-55).",
  })
  charger: string | null;

  @ApiProperty({ type: String, nullable: true, example: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' })
  token: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: ADDRESS_EXAMPLE,
    description: "The mandate's `payee` (EIP-55).",
  })
  payee: string | null;

  @ApiProperty({
    example: '5000000',
    description:
      "The mandate's `amount` for the `default` plan (a subscription on another plan: its `pricePerPeriod`, `GET /plans/{id}`).",
  })
  amount: string;

  @ApiProperty({ example: 2592000, description: "The mandate's `periodSeconds` for the `default` plan." })
  periodSeconds: number;
}

/** `GET /subscriptions/plan`: how renewals are paid here. */
export class PlanDto {
  @ApiProperty({
    enum: PAYMENT_GATEWAYS,
    example: 'erc20',
    description:
      '`free`: renew without paying. `operator`: only operators (and their API keys) renew. `erc20`: pay on chain, ' +
      'then renew with the transaction hash.',
  })
  gateway: string;

  @ApiProperty({ example: 2592000, description: 'Length of one period, in seconds.' })
  periodSeconds: number;

  @ApiProperty({ type: Erc20PlanDto, nullable: true, description: 'Set when `gateway` is `erc20`.' })
  erc20: Erc20PlanDto | null;

  @ApiProperty({
    type: AutoRenewTermsDto,
    nullable: true,
    required: false,
    description:
      'Automatic renewal (addition): its terms where it is offered (`free`; `erc20` with AUTO_RENEW_CHARGER_ADDRESS ' +
      "set), else null. The mandate's `start` is the subscription's `currentPeriodEnd` in unix seconds, rounded down.",
  })
  autoRenew?: AutoRenewTermsDto | null;
}
