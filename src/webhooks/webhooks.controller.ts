import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
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
  decodeCursor,
  sendPage,
} from '../common/pagination/cursor-page.js';
import type { WebhookAttemptRecord } from './delivery/webhook-delivery.repository.js';
import { MAX_ATTEMPTS_PER_DELIVERY } from './delivery/webhook-delivery.service.js';
import { secretPrefix } from './delivery/webhook-signer.js';
import { ListDeliveriesQueryDto, WebhookAttemptDto } from './dto/webhook-delivery.dto.js';
import { DeliveryResultDto, TestWebhookDto, TestWebhookResponseDto } from './dto/webhook-test.dto.js';
import { SaveWebhookDto, SavedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import type { WebhookEndpointRecord } from './webhooks.repository.js';
import { WebhookErrors } from './webhooks.errors.js';
import { EVENT_TYPES } from '../events/event-types.js';
import { MAX_WEBHOOKS_PER_WALLET, WebhooksService } from './webhooks.service.js';
import { isUuid } from '../common/ids/uuid.js';

const DELIVERY = `Events are POSTed to the configuration's \`url\` as Standard Webhooks 1.0:

- Body (\`content-type: application/json\`): \`{"id": "<event id>", "type": "subscription.renewed", "timestamp": "<ISO 8601 time of the event>", "data": {…}}\`.
- \`webhook-id\`: the event id, the same on every retry. Delivery is at least once: use it to drop duplicates.
- \`webhook-timestamp\`: unix seconds of this attempt; reject old ones to stop replays.
- \`webhook-signature\`: \`v1,<base64 HMAC-SHA256>\` over \`<webhook-id>.<webhook-timestamp>.<raw body>\`, keyed with the base64-decoded part of the secret after \`whsec_\`. While a rotation overlaps there is one entry per valid secret, space-separated; any one matching is enough. Standard Webhooks libraries verify it: \`new Webhook(secret).verify(rawBody, headers)\`.

A 2xx answer within 10 s is success; redirects are not followed. Anything else is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±20 % jitter; a \`Retry-After\` header can lengthen a wait, up to 24 h), then the delivery is marked failed. \`410 Gone\` disables the configuration at once, and five days of nothing but failures disable it too (\`disabledReason\`).

Event types: ${EVENT_TYPES.filter((type) => type !== 'webhook.test')
  .map((type) => `\`${type}\``)
  .join(
    ', ',
  )}, and \`webhook.test\` from POST /webhooks/test. A wallet's configurations receive the events about its own subscription and API keys; an operator's (OPERATOR_ADDRESSES) also receive the subscription events of every address.`;

function toWebhookDto(record: WebhookEndpointRecord): WebhookDto {
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    enabled: record.enabled,
    description: record.description,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    secretPrefix: secretPrefix(record.secret),
    failingSince: record.failingSince?.toISOString() ?? null,
    disabledReason: record.disabledReason,
  };
}

function toAttemptDto(record: WebhookAttemptRecord): WebhookAttemptDto {
  return {
    id: record.id,
    deliveryId: record.deliveryId,
    webhookId: record.endpointId,
    eventId: record.eventId,
    eventType: record.eventType,
    attemptedAt: record.attemptedAt.toISOString(),
    success: record.success,
    statusCode: record.statusCode,
    durationMs: record.durationMs,
    error: record.error,
    responseBody: record.responseBody,
    deliveryStatus: record.deliveryStatus,
    nextAttemptAt: record.nextAttemptAt?.toISOString() ?? null,
  };
}

@ApiTag('webhooks', {
  description: 'Signed event deliveries: configurations, test sends, the delivery log and retries.',
})
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: "The caller's webhook configurations, oldest first. Never the secret, only its prefix.",
    description:
      'Each configuration with its URL, event filter, state and, when deliveries keep failing, since when ' +
      '(`failingSince`) and why the service disabled it (`disabledReason`). Not paged: a wallet has at most ' +
      `${MAX_WEBHOOKS_PER_WALLET} configurations, so the answer holds at most that many.`,
  })
  @ApiOkResponse({
    type: WebhookDto,
    isArray: true,
    description: "The caller's configurations, oldest first.",
  })
  async listWebhooks(@CurrentPrincipal() principal: Principal): Promise<WebhookDto[]> {
    return (await this.webhooks.list(principal)).map(toWebhookDto);
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'saveWebhook',
    summary: 'Create or update a webhook configuration.',
    description: `Updates the caller's configuration named by \`id\` or, without \`id\`, the one with the same \`url\`; otherwise creates one (at most ${MAX_WEBHOOKS_PER_WALLET} per wallet). Omitted fields keep their values on update. The full \`secret\` is returned only when the configuration is created or \`rotateSecret\` is true.\n\n${DELIVERY}`,
  })
  @ApiOkResponse({
    type: SavedWebhookDto,
    description: 'The saved configuration; `secret` only when it was created or rotated.',
  })
  @ApiErrors({
    400: [
      'validation_failed',
      'invalid_json',
      'webhook_url_invalid',
      'webhook_url_forbidden',
      'webhook_url_unresolvable',
      'webhook_url_taken',
      'webhook_limit_reached',
    ],
    404: ['webhook_not_found'],
  })
  async saveWebhook(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SaveWebhookDto,
  ): Promise<SavedWebhookDto> {
    const { record, secret } = await this.webhooks.save(principal, body);
    return secret === undefined ? toWebhookDto(record) : { ...toWebhookDto(record), secret };
  }

  @Post('test')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'testWebhook',
    summary: 'Send a `webhook.test` event now and wait for the answers.',
    description: `Sends a \`webhook.test\` event (\`data\`: \`{"address", "message"}\`) through the real delivery path (same body format, headers, signature and URL checks as every event) to the named configuration, or to each enabled one of the caller, and waits for the receivers' answers (at most 10 s). Answers 200 whatever the receivers answered: each result says how its delivery went. Test deliveries are attempted once, are not retried and do not count towards a configuration's failures; they appear in GET /webhooks/deliveries and can be re-sent. Each test records an event, so it counts towards EVENTS_MAX_PER_WALLET_PER_DAY (409 \`event_limit_reached\`).\n\n${DELIVERY}`,
  })
  @ApiOkResponse({ type: TestWebhookResponseDto, description: 'One result per configuration sent to.' })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json'],
    404: ['webhook_not_found'],
    409: ['event_limit_reached'],
  })
  async testWebhook(
    @CurrentPrincipal() principal: Principal,
    @Body() body: TestWebhookDto,
  ): Promise<TestWebhookResponseDto> {
    return { deliveries: await this.webhooks.test(principal, body.id) };
  }

  @Get('deliveries')
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "Recent delivery attempts to the caller's configurations, newest first (addition).",
    description:
      'One entry per request sent to a receiver, with its outcome and the state of its delivery. Deliveries that ' +
      'are still waiting for their first attempt do not appear yet. One page of `limit` (default 50) attempts; ' +
      'when more follow, the `X-Next-Cursor` header holds the `cursor` of the next page (cursor pagination, ' +
      'addition).',
  })
  @ApiPagedResponse({
    type: WebhookAttemptDto,
    description: 'The attempts, newest first.',
    list: 'webhook_attempts',
  })
  @ApiErrors({ 400: ['validation_failed', 'invalid_cursor'], 404: ['webhook_not_found'] })
  async listWebhookDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListDeliveriesQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookAttemptDto[]> {
    const page = await this.webhooks.listAttempts(principal, query.webhookId, {
      limit: query.limit ?? PAGE_DEFAULT_LIMIT,
      after: query.cursor === undefined ? undefined : decodeCursor('webhook_attempts', query.cursor),
    });
    return sendPage(reply, 'webhook_attempts', page).map(toAttemptDto);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: "Delete one of the caller's webhook configurations (addition).",
    description:
      `Frees its place among the ${MAX_WEBHOOKS_PER_WALLET} a wallet may have. Its delivery log goes with it, ` +
      'and deliveries still pending to it are dropped. To pause deliveries instead, save it with ' +
      "`enabled: false`. Another wallet's configuration, or an unknown id, is 404.",
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The configuration id.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors({ 404: ['webhook_not_found'] })
  async deleteWebhook(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    // An id that is not a UUID names no configuration; answering 404 keeps it away from the uuid column.
    if (!isUuid(id)) throw WebhookErrors.notFound();
    await this.webhooks.delete(principal, id);
  }

  @Post('deliveries/:id/retry')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Re-send one delivery now and wait for the answer (addition).',
    description:
      "Sends the delivery's event again, with the same body and `webhook-id` and a fresh timestamp and signature, whatever its status and even if its configuration is disabled. Success marks the delivery succeeded; a failure leaves its status and any scheduled retry as they were. Answers 200 whatever the receiver answered. " +
      `A delivery is attempted at most ${MAX_ATTEMPTS_PER_DELIVERY} times, scheduled attempts included (each is a row of the delivery log): past that, 400 \`webhook_delivery_attempt_limit_reached\`.`,
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The delivery id (`deliveryId`).' })
  @ApiOkResponse({ type: DeliveryResultDto, description: 'How the re-sent delivery went.' })
  @ApiErrors({
    400: ['webhook_delivery_attempt_limit_reached'],
    404: ['webhook_delivery_not_found'],
    409: ['webhook_delivery_in_progress'],
  })
  async retryWebhookDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<DeliveryResultDto> {
    // An id that is not a UUID names no delivery; answering 404 keeps it away from the uuid column.
    if (!isUuid(id)) throw WebhookErrors.deliveryNotFound();
    return this.webhooks.retry(principal, id);
  }
}
