import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiTag } from '../common/http/api-tag.js';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import { ApiPagedResponse, pageRequest, PageQueryDto, sendPage } from '../common/pagination/cursor-page.js';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
import { CurrentPrincipal } from '../auth/decorators/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { ROUTE_SCOPES } from '../auth/scopes.js';
import type { ApiKeyRecord } from './api-keys.repository.js';
import { ApiKeyErrors } from './api-keys.errors.js';
import { ApiKeysService, USAGE_DAYS } from './api-keys.service.js';
import {
  ApiKeyCreatorDto,
  ApiKeyDto,
  ApiKeyUsageDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  RevokeApiKeyDto,
  RevokedApiKeyDto,
} from './dto/api-key.dto.js';
import { isUuid } from '../common/ids/uuid.js';

const CREATE_DESCRIPTION =
  'Creates an API key for the calling wallet. The full key is in this response only: store it, it cannot be shown again. As the interface says, keys do not expire: revoke them with POST /api-keys/revoke. Expiry is opt-in and additive: a key created with `expiresAt` is refused with 401 `api_key_expired` from that moment on, on every instance; an `api_key.expiring` event goes out API_KEY_EXPIRY_NOTICE_HOURS before (at once when the key is created closer to its expiry than that) and `api_key.expired` when it passes. A key never outlives the API key that created it: created by an expiring key, it expires with that key when `expiresAt` is omitted, and a later `expiresAt` is refused (400 `invalid_expiry`). When the operator sets API_KEY_MAX_LIFETIME_DAYS, a key created without `expiresAt` expires that many days after its creation (or earlier, with its creating key); the 24 h of a session token do not bind the keys it creates. A wallet holds at most API_KEYS_MAX_PER_WALLET live (neither revoked nor expired) keys: one more is refused with 400 `api_key_limit_reached`. Creating a key records an event, so it counts towards EVENTS_MAX_PER_WALLET_PER_DAY (409 `event_limit_reached`). Keys are for server-side use only, never client-side code. POST /api-keys and POST /api-keys/create are the same operation.';

/**
 * Keys in the answer without `limit` or `cursor`, which the interface fixes as an array: at least as many as the
 * largest API_KEYS_MAX_PER_WALLET, so that it holds every live key of a wallet that did not revoke many.
 */
const UNPAGED_LIST_MAX = 1000;

function creatorDto(record: ApiKeyRecord): ApiKeyCreatorDto | null {
  if (record.createdByKeyId) return { type: 'api_key', id: record.createdByKeyId };
  if (record.createdBySession) return { type: 'session', id: record.createdBySession };
  return null;
}

function toDto(record: ApiKeyRecord): ApiKeyDto {
  return {
    id: record.id,
    label: record.label,
    scopes: record.scopes,
    prefix: record.prefix,
    last4: record.last4,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    revoked: record.revokedAt !== null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
    createdBy: creatorDto(record),
    expiresAt: record.expiresAt?.toISOString() ?? null,
    expired: record.expiresAt !== null && record.expiresAt.getTime() <= Date.now(),
  };
}

@ApiTag('api-keys', { description: 'Scoped API keys for server-side integrations: create, list, revoke.' })
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key (the key is shown once).',
    description: CREATE_DESCRIPTION,
  })
  @ApiOkResponse({
    type: CreatedApiKeyDto,
    description: 'The new key, with the full secret (shown this once).',
  })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json', 'invalid_expiry', 'api_key_limit_reached'],
    403: ['scope_not_held'],
    409: ['event_limit_reached'],
  })
  createApiKey(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateApiKeyDto,
  ): Promise<CreatedApiKeyDto> {
    return this.create(principal, body);
  }

  @Post('create')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'createApiKeyViaCreatePath',
    summary: 'Create an API key (same operation as POST /api-keys).',
    description: CREATE_DESCRIPTION,
  })
  @ApiOkResponse({
    type: CreatedApiKeyDto,
    description: 'The new key, with the full secret (shown this once).',
  })
  @ApiErrors({
    400: ['validation_failed', 'invalid_json', 'invalid_expiry', 'api_key_limit_reached'],
    403: ['scope_not_held'],
    409: ['event_limit_reached'],
  })
  createApiKeyViaCreatePath(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateApiKeyDto,
  ): Promise<CreatedApiKeyDto> {
    return this.create(principal, body);
  }

  @Get('list')
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'listApiKeys',
    summary: "The caller's API keys, newest first, revoked ones included. Never the secret key.",
    description:
      'Each key with its label, scopes, display prefix and last four characters, creation, last use, expiry and ' +
      'revocation. `lastUsedAt` is current for the requests the answering instance served and at most 10 s behind ' +
      'for those other instances served (use is counted in memory and written every 10 s). Without `limit` or ' +
      '`cursor`, the newest ' +
      `${UNPAGED_LIST_MAX} keys, which hold every live key (a wallet holds at most API_KEYS_MAX_PER_WALLET of ` +
      'them) unless many more recent keys were revoked; `X-Next-Cursor` is set when older keys follow. With either, ' +
      'one page (cursor pagination, addition): see `X-Next-Cursor`.',
  })
  @ApiPagedResponse({ type: ApiKeyDto, description: "The caller's keys, newest first.", list: 'api_keys' })
  @ApiErrors({ 400: ['validation_failed', 'invalid_cursor'] })
  async listApiKeys(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PageQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApiKeyDto[]> {
    const page = pageRequest('api_keys', query) ?? { limit: UNPAGED_LIST_MAX, after: undefined };
    return sendPage(reply, 'api_keys', await this.apiKeys.listPage(principal, page)).map(toDto);
  }

  @Get(':id/usage')
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'getApiKeyUsage',
    summary: `Requests one of the caller's API keys authenticated per UTC day, over the last ${USAGE_DAYS} days (addition).`,
    description:
      'Counts are kept without a database write per request: each instance counts in memory and adds its counts to ' +
      'the stored ones every 10 s and when it stops. The answer includes what the answering instance has not ' +
      'written yet, so its own requests count at once; those other instances served show within 10 s. An instance ' +
      'that crashes loses at most the last 10 s of its counts. Revoked and expired keys keep their history. ' +
      "Another wallet's key, or an unknown id, is 404.",
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The key id.' })
  @ApiOkResponse({ type: ApiKeyUsageDto, description: 'The key id and one entry per day, newest first.' })
  @ApiErrors({ 404: ['api_key_not_found'] })
  async getApiKeyUsage(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<ApiKeyUsageDto> {
    // An id that is not a UUID names no key; answering 404 keeps it away from the uuid column.
    if (!isUuid(id)) throw ApiKeyErrors.notFound();
    return this.apiKeys.usageOf(principal, id.toLowerCase());
  }

  @Post('revoke')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: "Revoke one of the caller's API keys: refused from the very next request, on every instance.",
    description:
      'Revoking a key also revokes, in the same transaction, every key it created, directly or through other keys (`createdBy.type = api_key`): a key minted with a stolen key dies with it. Keys created by a wallet session are revoked only by their own revocation, or by signing out everywhere with `revokeKeys`. Revoking an already revoked key answers 200 with the original revocation time.',
  })
  @ApiOkResponse({ type: RevokedApiKeyDto, description: 'The key is revoked.' })
  @ApiErrors({ 400: ['validation_failed'], 404: ['api_key_not_found'] })
  async revokeApiKey(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RevokeApiKeyDto,
  ): Promise<RevokedApiKeyDto> {
    const { record, descendants } = await this.apiKeys.revoke(principal, body.id);
    return {
      id: record.id,
      revoked: true,
      revokedAt: record.revokedAt!.toISOString(),
      alsoRevoked: descendants.map((key) => key.id),
    };
  }

  private async create(principal: Principal, body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const { record, key } = await this.apiKeys.create(
      principal,
      body.label,
      body.scopes,
      body.expiresAt === undefined ? undefined : new Date(body.expiresAt),
    );
    return {
      id: record.id,
      key,
      label: record.label,
      scopes: record.scopes,
      prefix: record.prefix,
      createdAt: record.createdAt.toISOString(),
      createdBy: creatorDto(record)!,
      expiresAt: record.expiresAt?.toISOString() ?? null,
    };
  }
}
