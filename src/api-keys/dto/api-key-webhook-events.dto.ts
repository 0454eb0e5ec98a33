import { ApiProperty } from '@nestjs/swagger';
import { SCOPES, type Scope } from '../../auth/scopes.js';

const EVENT_ID = '0b8e3f52-6c1d-4f7a-9e2b-7d4c1a5f3e60';

/** `data` of the API-key events: the key's public facts, never the key. */
export class ApiKeyEventDataDto {
  @ApiProperty({ format: 'uuid', example: '5b0f6c1e-2d4a-4f7e-9a41-3f1c2b7d8e90' })
  id: string;

  @ApiProperty({ example: 'billing backend' })
  label: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['READ_ONLY'] })
  scopes: Scope[];

  @ApiProperty({ example: 'tg_4Fq9ZkP', description: 'The first 10 characters of the key.' })
  prefix: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  revokedAt: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2027-02-22T01:30:00.000Z',
    description: 'When the key stops working; null: it never expires.',
  })
  expiresAt: string | null;
}

/** `api_key.created`: the wallet created an API key. */
export class ApiKeyCreatedEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['api_key.created'], example: 'api_key.created' })
  type: 'api_key.created';

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z', description: 'When it happened.' })
  timestamp: string;

  @ApiProperty({ type: ApiKeyEventDataDto })
  data: ApiKeyEventDataDto;
}

/** `api_key.revoked`: the wallet revoked an API key. */
export class ApiKeyRevokedEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['api_key.revoked'], example: 'api_key.revoked' })
  type: 'api_key.revoked';

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z', description: 'When it happened.' })
  timestamp: string;

  @ApiProperty({ type: ApiKeyEventDataDto })
  data: ApiKeyEventDataDto;
}

/** `api_key.expiring`: an API key expires within API_KEY_EXPIRY_NOTICE_HOURS (once per key). */
export class ApiKeyExpiringEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['api_key.expiring'], example: 'api_key.expiring' })
  type: 'api_key.expiring';

  @ApiProperty({
    format: 'date-time',
    example: '2027-02-15T01:30:00.000Z',
    description: 'When the notice was recorded (`data.expiresAt` says when the key stops working).',
  })
  timestamp: string;

  @ApiProperty({ type: ApiKeyEventDataDto })
  data: ApiKeyEventDataDto;
}

/** `api_key.expired`: an API key reached its `expiresAt` (once per key). */
export class ApiKeyExpiredEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['api_key.expired'], example: 'api_key.expired' })
  type: 'api_key.expired';

  @ApiProperty({
    format: 'date-time',
    example: '2027-02-22T01:30:00.000Z',
    description: 'When the key expired (its `expiresAt`).',
  })
  timestamp: string;

  @ApiProperty({ type: ApiKeyEventDataDto })
  data: ApiKeyEventDataDto;
}
