import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Length,
} from 'class-validator';
import { SCOPES, type Scope } from '../../auth/scopes.js';
import { IsPlainText } from '../../common/validation/plain-text.js';
import { IsTimestamp } from '../../common/validation/timestamp.js';

export class CreateApiKeyDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    example: 'billing backend',
    description:
      'Free-text name of the key: one line, no control characters, bidirectional controls or zero-width characters.',
  })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 100)
  @IsPlainText()
  label: string;

  @ApiProperty({
    enum: SCOPES,
    isArray: true,
    example: ['READ_ONLY'],
    description:
      'READ_ONLY: read subscription status. SUBSCRIPTIONS_MANAGE: also renew and cancel. FULL: every endpoint. Non-empty, no duplicates, only scopes the caller holds.',
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @ArrayMaxSize(SCOPES.length)
  @IsIn(SCOPES, { each: true })
  scopes: Scope[];

  @ApiProperty({
    required: false,
    format: 'date-time',
    example: '2027-02-22T01:30:00.000Z',
    description:
      'When the key stops working (addition, opt-in): an ISO 8601 time with a time zone offset or `Z` (else 400 `validation_failed`), in the future, at most API_KEY_MAX_LIFETIME_DAYS ahead when the operator set one, and, when an API key that expires creates this one, not later than that key (else 400 `invalid_expiry`). From then on the key is refused with 401 `api_key_expired`. Omitted: the key expires with the key creating it, or API_KEY_MAX_LIFETIME_DAYS after its creation when the operator set one, whichever comes first; otherwise it never expires, as the interface says.',
  })
  @IsOptional()
  @IsTimestamp()
  expiresAt?: string;
}

export const API_KEY_CREATOR_TYPES = ['session', 'api_key'] as const;

export class ApiKeyCreatorDto {
  @ApiProperty({
    enum: API_KEY_CREATOR_TYPES,
    example: 'session',
    description:
      '`session`: a wallet session (JWT, header or cookie); `api_key`: another API key of the wallet, which revoking revokes this one too.',
  })
  type: (typeof API_KEY_CREATOR_TYPES)[number];

  @ApiProperty({
    format: 'uuid',
    example: '0c6f9f0e-8a3b-4d2c-9e51-7b2a1d4c3e60',
    description: "The session token's id (its `jti` claim) or the creating key's id.",
  })
  id: string;
}

/** `expiresAt` as the creation answer and the listing show it. */
const ExpiresAtProperty = (): PropertyDecorator =>
  ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'When the key stops working (401 `api_key_expired`); null: it never expires (addition).',
  });

const CREATED_BY = 'The credential that created the key (addition), to review what a session or a key made.';

export class CreatedApiKeyDto {
  @ApiProperty({ format: 'uuid', example: '5b0f6c1e-2d4a-4f7e-9a41-3f1c2b7d8e90' })
  id: string;

  @ApiProperty({
    example: 'tg_4Fq9ZkP2mX7vR1sT8bW3nY6cJ0dL5hGa2Kx9Qp',
    description:
      'The full secret key: `tg_` + 32 random base62 characters + 6 base62 checksum characters. Returned only here, once.',
  })
  key: string;

  @ApiProperty({ example: 'billing backend' })
  label: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['READ_ONLY'] })
  scopes: Scope[];

  @ApiProperty({
    example: 'tg_4Fq9ZkP',
    description: 'First 10 characters of the key, to recognise it later.',
  })
  prefix: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z' })
  createdAt: string;

  @ApiProperty({ type: ApiKeyCreatorDto, description: CREATED_BY })
  createdBy: ApiKeyCreatorDto;

  @ExpiresAtProperty()
  expiresAt: string | null;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid', example: '5b0f6c1e-2d4a-4f7e-9a41-3f1c2b7d8e90' })
  id: string;

  @ApiProperty({ example: 'billing backend' })
  label: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['READ_ONLY'] })
  scopes: Scope[];

  @ApiProperty({ example: 'tg_4Fq9ZkP' })
  prefix: string;

  @ApiProperty({ example: 'Qp3x', description: 'Last 4 characters of the key.' })
  last4: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z' })
  createdAt: string;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    example: '2026-11-22T02:00:00.000Z',
    description:
      'Last time the key authenticated a request: current for requests this instance served, at most 10 s behind for those other instances served.',
  })
  lastUsedAt: string | null;

  @ApiProperty({ example: false })
  revoked: boolean;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  revokedAt: string | null;

  @ApiProperty({
    type: ApiKeyCreatorDto,
    nullable: true,
    description: `${CREATED_BY} Null for keys created before this was recorded.`,
  })
  createdBy: ApiKeyCreatorDto | null;

  @ExpiresAtProperty()
  expiresAt: string | null;

  @ApiProperty({ example: false, description: 'Whether `expiresAt` has passed (addition).' })
  expired: boolean;
}

export class RevokeApiKeyDto {
  @ApiProperty({ format: 'uuid', example: '5b0f6c1e-2d4a-4f7e-9a41-3f1c2b7d8e90' })
  @IsUUID()
  id: string;
}

export class RevokedApiKeyDto {
  @ApiProperty({ format: 'uuid', example: '5b0f6c1e-2d4a-4f7e-9a41-3f1c2b7d8e90' })
  id: string;

  @ApiProperty({ example: true })
  revoked: true;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T03:00:00.000Z' })
  revokedAt: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    isArray: true,
    example: [],
    description:
      'Keys created by this key, directly or through other keys, that were still live and are revoked with it (addition).',
  })
  alsoRevoked: string[];
}

export class ApiKeyUsageDayDto {
  @ApiProperty({ format: 'date', example: '2026-11-25', description: 'A UTC day.' })
  day: string;

  @ApiProperty({ type: 'integer', example: 12, description: 'Requests the key authenticated that day.' })
  requests: number;
}

export class ApiKeyUsageDto {
  @ApiProperty({ format: 'uuid', example: '5b0f6c1e-2d4a-4f7e-9a41-3f1c2b7d8e90' })
  id: string;

  @ApiProperty({
    type: ApiKeyUsageDayDto,
    isArray: true,
    minItems: 30,
    maxItems: 30,
    description: 'Today (UTC) and the 29 days before, newest first; days without requests count 0.',
  })
  days: ApiKeyUsageDayDto[];
}
