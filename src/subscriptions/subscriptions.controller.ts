import { Body, Controller, Get, HttpCode, HttpStatus, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag } from '../common/http/api-tag.js';
import type { FastifyReply } from 'fastify';
import { resolveTargetAddress } from '../auth/access/address-access.js';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
import { Public } from '../auth/decorators/public.decorator.js';
import { CurrentPrincipal } from '../auth/decorators/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { ROUTE_SCOPES } from '../auth/scopes.js';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import {
  ApiPagedResponse,
  PAGE_DEFAULT_LIMIT,
  pageRequest,
  sendPage,
} from '../common/pagination/cursor-page.js';
import {
  CancelSubscriptionDto,
  ChangePlanDto,
  RenewSubscriptionDto,
  SubscriptionAddressQueryDto,
  SubscriptionHistoryQueryDto,
} from './dto/subscription-requests.dto.js';
import { PlanDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { ApiIdempotencyKey, IdempotencyKey } from './idempotency/idempotency-key.decorator.js';
import { AUTO_RENEW_OFF } from './subscription-auto-renew.js';
import { SubscriptionsService } from './subscriptions.service.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const ACTIVE_EXAMPLE: SubscriptionDto = {
  address: ADDRESS,
  status: 'active',
  active: true,
  currentPeriodStart: '2026-11-22T01:30:00.000Z',
  currentPeriodEnd: '2026-12-22T01:30:00.000Z',
  cancelAtPeriodEnd: false,
  canceledAt: null,
  createdAt: '2026-11-22T01:30:00.000Z',
  updatedAt: '2026-11-22T01:30:00.000Z',
  plan: { id: 'default', name: 'Default' },
  features: [],
  trialEnd: null,
  graceEndsAt: null,
  pendingPlan: null,
  autoRenew: AUTO_RENEW_OFF,
};
const NONE_EXAMPLE: SubscriptionDto = {
  address: ADDRESS,
  status: 'none',
  active: false,
  currentPeriodStart: null,
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  canceledAt: null,
  createdAt: null,
  updatedAt: null,
  plan: { id: 'default', name: 'Default' },
  features: [],
  trialEnd: null,
  graceEndsAt: null,
  pendingPlan: null,
  autoRenew: AUTO_RENEW_OFF,
};
const CANCELED_AT_PERIOD_END_EXAMPLE: SubscriptionDto = {
  ...ACTIVE_EXAMPLE,
  cancelAtPeriodEnd: true,
  canceledAt: '2026-11-30T09:00:00.000Z',
  updatedAt: '2026-11-30T09:00:00.000Z',
};
const CANCELED_NOW_EXAMPLE: SubscriptionDto = {
  ...ACTIVE_EXAMPLE,
  status: 'canceled',
  active: false,
  currentPeriodEnd: '2026-11-30T09:00:00.000Z',
  canceledAt: '2026-11-30T09:00:00.000Z',
  updatedAt: '2026-11-30T09:00:00.000Z',
};

const CHANGED_NOW_EXAMPLE: SubscriptionDto = {
  ...ACTIVE_EXAMPLE,
  currentPeriodStart: '2026-12-12T01:30:00.000Z',
  currentPeriodEnd: '2026-12-17T01:30:00.000Z',
  updatedAt: '2026-12-12T01:30:00.000Z',
  plan: { id: 'pro', name: 'Pro' },
  features: ['api.calls', 'export.csv'],
};
const SCHEDULED_EXAMPLE: SubscriptionDto = {
  ...CHANGED_NOW_EXAMPLE,
  updatedAt: '2026-12-14T08:00:00.000Z',
  pendingPlan: { id: 'basic', name: 'Basic', effectiveAt: '2026-12-17T01:30:00.000Z' },
};

const TX_HASH = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
const ERC20_PLAN_EXAMPLE: PlanDto = {
  gateway: 'erc20',
  periodSeconds: 2_592_000,
  erc20: {
    chainId: 8453,
    token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    symbol: 'USDC',
    decimals: 6,
    receiver: ADDRESS,
    pricePerPeriod: '5000000',
    confirmations: 3,
  },
};

const PAYMENTS =
  'The renewal goes through the payment gateway (`PAYMENT_GATEWAY`; `GET /subscriptions/plan` says which): ' +
  '`free` approves every renewal (development and tests); `operator` lets only operators (OPERATOR_ADDRESSES) and ' +
  'their API keys renew (anyone else: 403 `renewal_operator_only`); `erc20` takes `{"payment": {"txHash"}}`, the ' +
  "hash of a mined transfer of the payment token to the receiving address, from the subscription's wallet (or " +
  "from the operator's own wallet when an operator renews another address), of at least the price: it buys " +
  'floor(amount / price) periods, and each transfer is credited once, ever. A refused payment changes nothing: ' +
  '402 when it does not pay (`payment_required`, `payment_not_found`, `payment_reverted`, `payment_wrong_token`, ' +
  '`payment_wrong_receiver`, `payment_wrong_payer`, `payment_insufficient`, `payment_too_large`), 409 when it ' +
  'cannot be credited (`payment_already_used`, or `payment_not_confirmed` until it has the required ' +
  'confirmations), 503 `payment_chain_unavailable` when the chain cannot be reached (fails closed, credits ' +
  'nothing; retry later). `payment_not_found` and `payment_not_confirmed` do not use up an Idempotency-Key.';

const PLANS =
  'Plans (addition): `plan` names the plan to subscribe to; without it the subscription renews its current plan ' +
  "(`default`, the settings' plan, for a wallet that never chose one). The period is the plan's and, under " +
  "`erc20`, the price is the plan's (`GET /plans/{id}`); a plan priced `0` is credited one period with no payment. " +
  'Renewing the plan the subscription is on is allowed even once archived. While a change of plan is scheduled ' +
  '(`pendingPlan`), the periods a renewal appends are on the scheduled plan, at its price and period, and the ' +
  'change still takes effect at its date; naming the current plan then is 409 `plan_change_pending`.';

const CHANGE_PLAN =
  'Changes the plan of an active subscription; no money changes hands. To a plan that costs more per second ' +
  '(price × the other period compared in integers) it takes effect at once: a new period starts now, and the time ' +
  "left is converted at the two plans' prices per second, rounded down to whole seconds (10 days left on a 5-token " +
  '30-day plan become 5 days on a 10-token 30-day plan), emitting `subscription.plan_changed` and, when the ' +
  'features change, `entitlements.updated`. To a plan as dear or cheaper per second it is scheduled for the end ' +
  'of the period (`pendingPlan` with its `effectiveAt`) and applied then by the background workers, once, with ' +
  'the same events; a renewal meanwhile buys periods of the scheduled plan, at its price. Naming the current plan ' +
  'drops a scheduled change; naming the plan already scheduled, or the current one with nothing scheduled, ' +
  'changes nothing (200). Every change is in the history (`plan_changed`, `plan_scheduled`, `plan_unscheduled`). ' +
  'No active subscription: 409 `subscription_not_active` (subscribe with `POST /subscriptions/renew {"plan"}`). ' +
  'Nothing left to convert (a free current plan, or less than a second of the new plan): 409 ' +
  '`plan_change_no_time_left`.';

const ACCESS =
  'An operator (OPERATOR_ADDRESSES), or an API key an operator created, may act on any address; anyone else only ' +
  'on their own (403 `address_forbidden`).';

@ApiTag('subscriptions', {
  description: "A wallet's subscription: status, renewal, cancel, history, and how renewals are paid.",
})
@Controller('subscriptions')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Get('plan')
  @Public()
  @ApiOperation({
    operationId: 'getSubscriptionPlan',
    summary: 'How renewals are paid here (addition, public).',
    description:
      'The payment gateway in force and the length of a period; under `erc20`, everything needed to build the ' +
      "transfer: chain, token (its symbol and decimals read from the token's contract), receiving address, price " +
      'per period, confirmations required. 503 `payment_chain_unavailable` while the token cannot be read.',
  })
  @ApiOkResponse({
    type: PlanDto,
    description: 'The payment terms.',
    examples: {
      erc20: { summary: 'Paid in an ERC-20 token', value: ERC20_PLAN_EXAMPLE },
      free: {
        summary: 'Free (development)',
        value: { gateway: 'free', periodSeconds: 2_592_000, erc20: null },
      },
    },
  })
  @ApiErrors({ 503: ['payment_chain_unavailable'] })
  getSubscriptionPlan(): Promise<PlanDto> {
    return this.subscriptions.plan();
  }

  @Get('status')
  @Authenticated({ scopes: ROUTE_SCOPES.readSubscriptions })
  @ApiOperation({
    operationId: 'getSubscriptionStatus',
    summary: 'The subscription of a wallet address, its status computed at read time.',
    description:
      'Status `none` (never subscribed) answers 200 with every timestamp null. Without `address`, the ' +
      `caller's own subscription. ${ACCESS}`,
  })
  @ApiOkResponse({
    type: SubscriptionDto,
    description: 'The subscription object.',
    examples: {
      active: { summary: 'An active subscription', value: ACTIVE_EXAMPLE },
      none: { summary: 'Never subscribed', value: NONE_EXAMPLE },
    },
  })
  @ApiErrors({ 400: ['validation_failed'], 403: ['address_forbidden'] })
  getSubscriptionStatus(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SubscriptionAddressQueryDto,
  ): Promise<SubscriptionDto> {
    return this.subscriptions.status(resolveTargetAddress(principal, query.address));
  }

  @Post('renew')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.manageSubscriptions })
  @ApiOperation({
    operationId: 'renewSubscription',
    summary: 'Renew manually: pay for one more period (or several).',
    description:
      'An active subscription is extended by the periods paid from its current end (and a pending cancel is ' +
      `dropped); any other starts them now. ${PAYMENTS} Emits \`subscription.renewed\` with the payment in ` +
      `\`data.payment\`. Each renewal counts towards EVENTS_MAX_PER_WALLET_PER_DAY for the renewed address (409 ` +
      `\`event_limit_reached\`, retryable later). ${ACCESS}\n\n${PLANS}`,
  })
  @ApiIdempotencyKey()
  @ApiBody({
    type: RenewSubscriptionDto,
    required: false,
    examples: {
      own: { summary: "The caller's own subscription", value: {} },
      other: { summary: 'Another address (operators)', value: { address: ADDRESS } },
      paid: { summary: 'Paid on chain (`erc20`)', value: { payment: { txHash: TX_HASH } } },
      plan: { summary: 'Subscribe to a plan (`GET /plans`)', value: { plan: 'pro' } },
      paidForOther: {
        summary: "Paid on chain from the operator's wallet for another address",
        value: { address: ADDRESS, payment: { txHash: TX_HASH } },
      },
    },
  })
  @ApiOkResponse({ type: SubscriptionDto, description: 'The renewed subscription.', example: ACTIVE_EXAMPLE })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json', 'idempotency_key_reused', 'payment_not_expected'],
    402: [
      'payment_required',
      'payment_not_found',
      'payment_reverted',
      'payment_wrong_token',
      'payment_wrong_receiver',
      'payment_wrong_payer',
      'payment_insufficient',
      'payment_too_large',
    ],
    403: ['address_forbidden', 'renewal_operator_only'],
    404: ['plan_not_found'],
    409: [
      'idempotency_in_progress',
      'payment_already_used',
      'payment_not_confirmed',
      'event_limit_reached',
      'plan_archived',
      'plan_change_required',
      'plan_change_pending',
      'plan_changed',
    ],
    503: ['payment_chain_unavailable', 'payment_chain_mismatch'],
  })
  renewSubscription(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RenewSubscriptionDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<SubscriptionDto> {
    return this.subscriptions.renew(
      principal,
      resolveTargetAddress(principal, body.address),
      body.payment?.txHash,
      idempotencyKey,
      body.plan,
    );
  }

  @Post('change-plan')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.manageSubscriptions })
  @ApiOperation({
    operationId: 'changeSubscriptionPlan',
    summary: 'Change plan: a dearer one at once, another at the period end (addition).',
    description: `${CHANGE_PLAN} Counts towards EVENTS_MAX_PER_WALLET_PER_DAY as a renewal does. ${ACCESS}`,
  })
  @ApiIdempotencyKey()
  @ApiBody({
    type: ChangePlanDto,
    examples: {
      upgrade: { summary: 'To a dearer plan: at once', value: { plan: 'pro' } },
      other: { summary: 'Another address (operators)', value: { address: ADDRESS, plan: 'basic' } },
    },
  })
  @ApiOkResponse({
    type: SubscriptionDto,
    description: 'The subscription after the change (unchanged when there was nothing to change).',
    examples: {
      now: { summary: 'Changed at once', value: CHANGED_NOW_EXAMPLE },
      scheduled: { summary: 'Scheduled for the period end', value: SCHEDULED_EXAMPLE },
    },
  })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json', 'idempotency_key_reused'],
    403: ['address_forbidden'],
    404: ['plan_not_found'],
    409: [
      'idempotency_in_progress',
      'subscription_not_active',
      'plan_archived',
      'plan_change_no_time_left',
      'event_limit_reached',
    ],
  })
  changeSubscriptionPlan(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangePlanDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<SubscriptionDto> {
    return this.subscriptions.changePlan(
      principal,
      resolveTargetAddress(principal, body.address),
      body.plan,
      idempotencyKey,
    );
  }

  @Post('cancel')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.manageSubscriptions })
  @ApiOperation({
    operationId: 'cancelSubscription',
    summary: 'Cancel: at the end of the paid period, or immediately.',
    description:
      'An active subscription is set to stop at its period end (`cancelAtPeriodEnd`), or with `immediate: true` ' +
      'ends now (`canceled`); either emits `subscription.canceled`. Cancelling again, or cancelling a subscription ' +
      `that is already over, answers 200 with no change. Never subscribed: 404. ${ACCESS}`,
  })
  @ApiIdempotencyKey()
  @ApiBody({
    type: CancelSubscriptionDto,
    required: false,
    examples: {
      atPeriodEnd: { summary: 'Stop at the end of the paid period', value: {} },
      immediate: { summary: 'End now', value: { immediate: true } },
      other: { summary: 'Another address (operators)', value: { address: ADDRESS, immediate: false } },
    },
  })
  @ApiOkResponse({
    type: SubscriptionDto,
    description: 'The subscription after the cancel (unchanged when there was nothing to cancel).',
    examples: {
      atPeriodEnd: { summary: 'Canceled at period end', value: CANCELED_AT_PERIOD_END_EXAMPLE },
      immediate: { summary: 'Canceled immediately', value: CANCELED_NOW_EXAMPLE },
    },
  })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json', 'idempotency_key_reused'],
    403: ['address_forbidden'],
    404: ['subscription_not_found'],
    409: ['idempotency_in_progress'],
  })
  cancelSubscription(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CancelSubscriptionDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<SubscriptionDto> {
    return this.subscriptions.cancel(
      principal,
      resolveTargetAddress(principal, body.address),
      body.immediate ?? false,
      idempotencyKey,
    );
  }

  @Get('history')
  @Authenticated({ scopes: ROUTE_SCOPES.readSubscriptions })
  @ApiOperation({
    operationId: 'getSubscriptionHistory',
    summary: "The subscription's changes, newest first (addition).",
    description:
      'Renewals, cancels and expiries. An address that never subscribed has an empty history. Without ' +
      "`address`, the caller's own. Always one page (cursor pagination, addition): the newest " +
      `${PAGE_DEFAULT_LIMIT} changes unless \`limit\` says otherwise, and \`X-Next-Cursor\` when older ones ` +
      `follow. ${ACCESS}`,
  })
  @ApiPagedResponse({
    type: SubscriptionEventDto,
    description: 'The history, newest first.',
    list: 'subscription_history',
  })
  @ApiErrors({ 400: ['validation_failed', 'invalid_cursor'], 403: ['address_forbidden'] })
  async getSubscriptionHistory(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SubscriptionHistoryQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SubscriptionEventDto[]> {
    const address = resolveTargetAddress(principal, query.address);
    const page = pageRequest('subscription_history', query) ?? {
      limit: PAGE_DEFAULT_LIMIT,
      after: undefined,
    };
    return sendPage(reply, 'subscription_history', await this.subscriptions.historyPage(address, page));
  }
}
