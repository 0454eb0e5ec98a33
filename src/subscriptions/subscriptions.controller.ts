import { Body, Controller, Get, HttpCode, HttpStatus, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { resolveTargetAddress } from '../auth/access/address-access.js';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
import { CurrentPrincipal } from '../auth/decorators/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { ROUTE_SCOPES } from '../auth/scopes.js';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import {
  CancelSubscriptionDto,
  RenewSubscriptionDto,
  SubscriptionAddressQueryDto,
} from './dto/subscription-requests.dto.js';
import { SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { ApiIdempotencyKey, IdempotencyKey } from './idempotency/idempotency-key.decorator.js';
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

const ACCESS =
  'An operator (OPERATOR_ADDRESSES), or an API key an operator created, may act on any address; anyone else only ' +
  'on their own (403 `address_forbidden`).';

@ApiTags('subscriptions')
@Controller('subscriptions')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Get('status')
  @Authenticated({ scopes: ROUTE_SCOPES.readSubscriptions })
  @ApiOperation({
    operationId: 'getSubscriptionStatus',
    summary: 'The subscription of a wallet address, its status computed at read time.',
    description: `Status \`none\` (never subscribed) answers 200 with every timestamp null. ${ACCESS}`,
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
    return this.subscriptions.status(resolveTargetAddress(principal, query.address), principal.freshAsOf);
  }

  @Post('renew')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.manageSubscriptions })
  @ApiOperation({
    operationId: 'renewSubscription',
    summary: 'Renew manually: pay for one more period.',
    description:
      'An active subscription is extended by one period from its current end (and a pending cancel is dropped); ' +
      'any other starts a new period now. The renewal goes through the payment gateway; the default one approves ' +
      `and records a zero-amount payment. Emits \`subscription.renewed\`. ${ACCESS}`,
  })
  @ApiIdempotencyKey()
  @ApiBody({
    type: RenewSubscriptionDto,
    required: false,
    examples: {
      own: { summary: "The caller's own subscription", value: {} },
      other: { summary: 'Another address (operators)', value: { address: ADDRESS } },
    },
  })
  @ApiOkResponse({ type: SubscriptionDto, description: 'The renewed subscription.', example: ACTIVE_EXAMPLE })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json', 'idempotency_key_reused'],
    403: ['address_forbidden'],
    409: ['idempotency_in_progress'],
  })
  renewSubscription(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RenewSubscriptionDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<SubscriptionDto> {
    return this.subscriptions.renew(principal, resolveTargetAddress(principal, body.address), idempotencyKey);
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
    description: `Renewals, cancels and expiries. An address that never subscribed has an empty history. ${ACCESS}`,
  })
  @ApiOkResponse({ type: SubscriptionEventDto, isArray: true, description: 'The history, newest first.' })
  @ApiErrors({ 400: ['validation_failed'], 403: ['address_forbidden'] })
  getSubscriptionHistory(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SubscriptionAddressQueryDto,
  ): Promise<SubscriptionEventDto[]> {
    return this.subscriptions.history(resolveTargetAddress(principal, query.address));
  }
}
