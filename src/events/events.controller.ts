import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiTag } from '../common/http/api-tag.js';
import type { FastifyReply } from 'fastify';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
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
import { EventDto, ListEventsQueryDto } from './dto/event.dto.js';
import { EventsService } from './events.service.js';

@ApiTag('events', {
  description: 'Every event the webhooks carry, listed for reconciliation (kept EVENTS_RETENTION_DAYS).',
})
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @Authenticated({ scopes: ROUTE_SCOPES.readSubscriptions })
  @ApiOperation({
    operationId: 'listEvents',
    summary: "The caller's events, newest first, as their webhooks carried them (addition).",
    description:
      'Every event the service emitted about the caller (all types, `webhook.test` included), whether or not a ' +
      "webhook received it: the `id` is the webhook body's `id` and `webhook-id` header, `createdAt` its " +
      '`timestamp`, `data` its `data`, so an integrator whose endpoint was down can catch up without a replay. ' +
      'Events are kept for EVENTS_RETENTION_DAYS (default 30), then purged. One page of `limit` (default ' +
      `${PAGE_DEFAULT_LIMIT}) events; when more follow, the \`X-Next-Cursor\` header holds the \`cursor\` of the ` +
      'next page. An operator (OPERATOR_ADDRESSES), or an API key an operator created, sees every event of its own ' +
      "wallet and the subscription events (`subscription.*`) of every other address, the same events operators' " +
      "webhooks receive, and may narrow them with `address`; another wallet's `api_key.*` and `webhook.test` events " +
      'are listed to that wallet only. Anyone else sees only their own (another `address`: 403 `address_forbidden`).',
  })
  @ApiPagedResponse({ type: EventDto, description: 'The events, newest first.', list: 'events' })
  @ApiErrors({
    400: ['validation_failed', 'invalid_cursor', 'invalid_time_range'],
    403: ['address_forbidden'],
  })
  async listEvents(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListEventsQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EventDto[]> {
    // The events list always pages: no pagination parameter is its first page.
    const request = pageRequest('events', query) ?? { limit: PAGE_DEFAULT_LIMIT, after: undefined };
    const page = await this.events.list(principal, query, request);
    return sendPage(reply, 'events', page);
  }
}
