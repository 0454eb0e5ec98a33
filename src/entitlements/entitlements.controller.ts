import { Controller, Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, getSchemaPath } from '@nestjs/swagger';
import { resolveTargetAddress } from '../auth/access/address-access.js';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
import { CurrentPrincipal } from '../auth/decorators/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { ROUTE_SCOPES } from '../auth/scopes.js';
import { ApiTag } from '../common/http/api-tag.js';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import { EntitlementDto, EntitlementListDto, EntitlementsQueryDto } from './dto/entitlement.dto.js';
import { EntitlementsService } from './entitlements.service.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const PRO = { id: 'pro', name: 'Pro' };
const UNTIL = '2026-12-22T01:30:00.000Z';

@ApiTag('entitlements', {
  description: 'What a wallet may use now: the features of its plan while its subscription is in force.',
})
@Controller('entitlements')
export class EntitlementsController {
  constructor(private readonly entitlements: EntitlementsService) {}

  @Get()
  @Authenticated({ scopes: ROUTE_SCOPES.readEntitlements })
  @ApiOperation({
    operationId: 'getEntitlements',
    summary: 'Whether a wallet may use a feature now, or every feature it may use (addition).',
    description:
      "With `feature`, whether that feature is in force for the wallet now; without it, the list of the wallet's " +
      "features in force. A feature is in force while it is listed by the wallet's plan and its subscription is " +
      '`active` or `trialing`; a wallet that never subscribed is on `default` with none. Read from the same cache ' +
      'as `GET /subscriptions/status`, and as current: a change committed before the request (an expiry, a cancel, ' +
      "a plan change) is honoured on every instance. Without `address`, the caller's own. An operator " +
      '(OPERATOR_ADDRESSES), or an API key an operator created, may read any address; anyone else only their own ' +
      '(403 `address_forbidden`).',
  })
  @ApiExtraModels(EntitlementDto, EntitlementListDto)
  @ApiOkResponse({
    description: 'With `feature`: an EntitlementDto; without: an EntitlementListDto.',
    schema: { oneOf: [{ $ref: getSchemaPath(EntitlementDto) }, { $ref: getSchemaPath(EntitlementListDto) }] },
    examples: {
      feature: {
        summary: 'One feature, in force',
        value: { address: ADDRESS, feature: 'export.csv', entitled: true, plan: PRO, until: UNTIL },
      },
      list: {
        summary: 'Every feature in force',
        value: { address: ADDRESS, plan: PRO, features: ['api.calls', 'export.csv'], until: UNTIL },
      },
      none: {
        summary: 'Never subscribed',
        value: { address: ADDRESS, plan: { id: 'default', name: 'Default' }, features: [], until: null },
      },
    },
  })
  @ApiErrors({ 400: ['validation_failed'], 403: ['address_forbidden'] })
  getEntitlements(
    @CurrentPrincipal() principal: Principal,
    @Query() query: EntitlementsQueryDto,
  ): Promise<EntitlementDto | EntitlementListDto> {
    const address = resolveTargetAddress(principal, query.address);
    return query.feature === undefined
      ? this.entitlements.list(address)
      : this.entitlements.check(address, query.feature);
  }
}
