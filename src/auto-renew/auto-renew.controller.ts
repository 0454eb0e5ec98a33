import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { resolveTargetAddress } from '../auth/access/address-access.js';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
import { CurrentPrincipal } from '../auth/decorators/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { ROUTE_SCOPES } from '../auth/scopes.js';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import { ApiTag } from '../common/http/api-tag.js';
import { SubscriptionDto } from '../subscriptions/dto/subscription.dto.js';
import { AutoRenewService } from './auto-renew.service.js';
import { AutoRenewAddressDto, EnableAutoRenewDto, MANDATE_EXAMPLE } from './dto/auto-renew.dto.js';

const ACCESS =
  'An operator (OPERATOR_ADDRESSES), or an API key an operator created, may act on any address; anyone else only ' +
  'on their own (403 `address_forbidden`).';

@ApiTag('auto-renew', {
  description:
    'Automatic renewal: the subscriber authorizes once, the service charges each period at its end (docs/auto-renew.md).',
})
@Controller('subscriptions/auto-renew')
export class AutoRenewController {
  constructor(private readonly autoRenew: AutoRenewService) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.manageSubscriptions })
  @ApiOperation({
    operationId: 'enableAutoRenew',
    summary: 'Renew automatically at each period end (addition).',
    description:
      'Under `erc20`: registers the EIP-712 mandate the payer signed for the charging contract (terms from ' +
      '`GET /subscriptions/plan`, `autoRenew`). It is checked before it is accepted: the signature must be the ' +
      "subscription's wallet's (ordinary, ERC-1271 or ERC-6492 wallet), the token, payee and amount the configured " +
      "ones and the plan's price, the period the plan's, and `start` the subscription's current period end (unix " +
      'seconds, rounded down); each refusal has its 400 code. The allowance the payer gave the charging contract is ' +
      'read and a shortfall reported in `autoRenew.allowanceShortfall` (approve it before the period ends). Under ' +
      '`free`: send `{}` (or `{"periods": n}`): each period is renewed with a zero payment. Under `operator`: 400 ' +
      '`auto_renew_unavailable` (also under `erc20` without AUTO_RENEW_CHARGER_ADDRESS). The subscription must be ' +
      'in force and not canceled (409 `subscription_not_active`). A new registration replaces the one before. ' +
      ACCESS,
  })
  @ApiBody({
    type: EnableAutoRenewDto,
    examples: {
      erc20: {
        summary: 'A signed mandate (`erc20`)',
        value: { mandate: MANDATE_EXAMPLE, signature: `0x${'1b'.repeat(65)}` },
      },
      free: { summary: 'Free (development)', value: {} },
    },
  })
  @ApiOkResponse({ type: SubscriptionDto, description: 'The subscription, with `autoRenew` enabled.' })
  @ApiErrors({
    400: [
      'validation_failed',
      'invalid_json',
      'auto_renew_unavailable',
      'mandate_required',
      'mandate_not_expected',
      'mandate_wrong_payer',
      'mandate_wrong_token',
      'mandate_wrong_payee',
      'mandate_wrong_amount',
      'mandate_wrong_period',
      'mandate_wrong_start',
      'mandate_bad_signature',
    ],
    403: ['address_forbidden'],
    409: ['subscription_not_active', 'mandate_in_use'],
    503: ['auto_renew_chain_unavailable'],
  })
  enableAutoRenew(
    @CurrentPrincipal() principal: Principal,
    @Body() body: EnableAutoRenewDto,
  ): Promise<SubscriptionDto> {
    return this.autoRenew.enable(resolveTargetAddress(principal, body.address), body);
  }

  @Post('disable')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.manageSubscriptions })
  @ApiOperation({
    operationId: 'disableAutoRenew',
    summary: 'Stop renewing automatically (addition).',
    description:
      'No further charge is made; the paid period runs to its end. A payer may also revoke the mandate on chain ' +
      `(the charging contract's \`revoke\`). No automatic renewal enabled: 404 \`auto_renew_not_enabled\`. ${ACCESS}`,
  })
  @ApiBody({ type: AutoRenewAddressDto, required: false })
  @ApiOkResponse({ type: SubscriptionDto, description: 'The subscription, with `autoRenew` off.' })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json'],
    403: ['address_forbidden'],
    404: ['auto_renew_not_enabled'],
  })
  disableAutoRenew(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AutoRenewAddressDto,
  ): Promise<SubscriptionDto> {
    return this.autoRenew.disable(resolveTargetAddress(principal, body.address));
  }

  @Post('retry')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.manageSubscriptions })
  @ApiOperation({
    operationId: 'retryAutoRenew',
    summary: 'Try a failed automatic charge again now (addition).',
    description:
      'After fixing what `autoRenew.failure` names (raising the allowance, topping up the balance), the charge is ' +
      'tried at the next round of the renewal sweep (seconds) instead of at its scheduled retry. Nothing failed: 409 ' +
      `\`auto_renew_nothing_to_retry\`; none enabled: 404 \`auto_renew_not_enabled\`. ${ACCESS}`,
  })
  @ApiBody({ type: AutoRenewAddressDto, required: false })
  @ApiOkResponse({ type: SubscriptionDto, description: 'The subscription, `autoRenew.nextChargeAt` now.' })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json'],
    403: ['address_forbidden'],
    404: ['auto_renew_not_enabled'],
    409: ['auto_renew_nothing_to_retry'],
  })
  retryAutoRenew(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AutoRenewAddressDto,
  ): Promise<SubscriptionDto> {
    return this.autoRenew.retry(resolveTargetAddress(principal, body.address));
  }
}
