import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsString,
  IsUUID,
  Length,
} from 'class-validator';
import { SCOPES, type Scope } from '../../auth/scopes.js';
import { IsPlainText } from '../../common/validation/plain-text.js';

export class CreateApiKeyDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    example: 'billing backend',
    description: 'Free-text name of the key: one line, no control characters.',
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
}

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
    description: 'Last time the key authenticated a request (updated at most once a minute).',
  })
  lastUsedAt: string | null;

  @ApiProperty({ example: false })
  revoked: boolean;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  revokedAt: string | null;
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
}
