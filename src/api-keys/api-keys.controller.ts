import { Body, Controller, Get, HttpCode, HttpStatus, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/http/api-errors.decorator.js';
import { ApiPagedResponse, pageRequest, PageQueryDto, sendPage } from '../common/pagination/cursor-page.js';
import { Authenticated } from '../auth/decorators/authenticated.decorator.js';
import { CurrentPrincipal } from '../auth/decorators/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { ROUTE_SCOPES } from '../auth/scopes.js';
import type { ApiKeyRecord } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import {
  ApiKeyCreatorDto,
  ApiKeyDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  RevokeApiKeyDto,
  RevokedApiKeyDto,
} from './dto/api-key.dto.js';

const CREATE_DESCRIPTION =
  'Creates an API key for the calling wallet. The full key is in this response only: store it, it cannot be shown again. Keys do not expire; revoke them with POST /api-keys/revoke. Keys are for server-side use only, never client-side code. POST /api-keys and POST /api-keys/create are the same operation.';

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
  };
}

@ApiTags('api-keys')
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
  @ApiErrors({ 400: ['validation_failed', 'invalid_json'], 403: ['scope_not_held'] })
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
  @ApiErrors({ 400: ['validation_failed', 'invalid_json'], 403: ['scope_not_held'] })
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
      'Each key with its label, scopes, display prefix and last four characters, creation, last use (written at ' +
      'most once a minute) and revocation. Without `limit` or `cursor`, every key; with either, one page ' +
      '(cursor pagination, addition): see `X-Next-Cursor`.',
  })
  @ApiPagedResponse({ type: ApiKeyDto, description: "The caller's keys, newest first." })
  @ApiErrors({ 400: ['validation_failed', 'invalid_cursor'] })
  async listApiKeys(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PageQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApiKeyDto[]> {
    const page = pageRequest('api_keys', query);
    if (!page) return (await this.apiKeys.list(principal)).map(toDto);
    return sendPage(reply, 'api_keys', await this.apiKeys.listPage(principal, page)).map(toDto);
  }

  @Post('revoke')
  @HttpCode(HttpStatus.OK)
  @Authenticated({ scopes: ROUTE_SCOPES.full })
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: "Revoke one of the caller's API keys: refused from the very next request, on every instance.",
    description:
      'Revoking a key also revokes, in the same transaction, every key it created, directly or through other keys (`createdBy.type = api_key`): a key minted with a stolen key dies with it. Keys created by a wallet session are not revoked by anything but their own revocation (signing out everywhere ends sessions, not keys). Revoking an already revoked key answers 200 with the original revocation time.',
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
    const { record, key } = await this.apiKeys.create(principal, body.label, body.scopes);
    return {
      id: record.id,
      key,
      label: record.label,
      scopes: record.scopes,
      prefix: record.prefix,
      createdAt: record.createdAt.toISOString(),
      createdBy: creatorDto(record)!,
    };
  }
}
