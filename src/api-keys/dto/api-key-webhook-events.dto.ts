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
