import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
} from 'class-validator';
import { IsPlainText } from '../../common/validation/plain-text.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import { WEBHOOK_URL_MAX_LENGTH } from '../delivery/webhook-url.guard.js';
import { WEBHOOK_DISABLED_REASONS, type WebhookDisabledReason } from '../webhook-endpoint.entity.js';

/** What a configuration may subscribe to: any event type, or `*` for all of them. */
export const WEBHOOK_EVENT_FILTERS = ['*', ...EVENT_TYPES] as const;

const ID_EXAMPLE = '3f6c2a9e-1b7d-4c52-8e0a-5d9b7f1c2e34';
const URL_EXAMPLE = 'https://api.example.com/webhooks/tollgate';

export class SaveWebhookDto {
  @ApiProperty({
    required: false,
    format: 'uuid',
    example: ID_EXAMPLE,
    description:
      "Update this configuration (404 unless it is the caller's). Without it, the caller's configuration with the same `url` is updated, or a new one is created.",
  })
  @IsOptional()
  @IsUUID()
  id?: string;

  @ApiProperty({
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    example: URL_EXAMPLE,
    description:
      'Absolute `https` URL (plain `http` only where WEBHOOK_ALLOW_HTTP=true), without credentials. Hosts that are or resolve to loopback, private, link-local, CGNAT, multicast, unspecified or cloud-metadata addresses are refused (`webhook_url_forbidden`) unless WEBHOOK_ALLOW_PRIVATE=true. Stored in normalised form (e.g. `https://Example.com` becomes `https://example.com/`).',
  })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url: string;

  @ApiProperty({
    required: false,
    enum: WEBHOOK_EVENT_FILTERS,
    isArray: true,
    default: ['*'],
    example: ['subscription.renewed', 'subscription.canceled'],
    description:
      'Event types to receive, or `["*"]` for all of them (the default on create; kept as it is on update). Non-empty, no duplicates.',
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @ArrayMaxSize(WEBHOOK_EVENT_FILTERS.length)
  @IsIn(WEBHOOK_EVENT_FILTERS, { each: true })
  events?: string[];

  @ApiProperty({
    required: false,
    default: true,
    example: true,
    description:
      'Whether events are delivered (default true on create; kept as it is on update). Setting it back to true after the service disabled the configuration clears `disabledReason` and `failingSince`.',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiProperty({
    required: false,
    nullable: true,
    type: String,
    maxLength: 500,
    example: 'Billing backend',
    description:
      'Free text for the owner, one line without control characters, bidirectional controls or zero-width characters. Kept as it is on update when omitted; null clears it.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @IsPlainText()
  description?: string | null;

  @ApiProperty({
    required: false,
    default: false,
    example: false,
    description:
      'Issue a new secret (returned in this response only). The replaced secret keeps signing too for 24 hours, so receivers can switch over without losing deliveries; rotating again within those 24 hours drops the oldest secret.',
  })
  @IsOptional()
  @IsBoolean()
  rotateSecret?: boolean;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid', example: ID_EXAMPLE })
  id: string;

  @ApiProperty({ example: URL_EXAMPLE })
  url: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_FILTERS, isArray: true, example: ['*'] })
  events: string[];

  @ApiProperty({ example: true })
  enabled: boolean;

  @ApiProperty({ nullable: true, type: String, example: 'Billing backend' })
  description: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z' })
  updatedAt: string;

  @ApiProperty({
    example: 'whsec_Q2xh',
    description:
      'The first 10 characters of the current secret, to tell secrets apart; never the secret itself.',
  })
  secretPrefix: string;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    example: null,
    description:
      'When the current run of failed deliveries began; null while deliveries succeed. After five days of nothing but failures the configuration is disabled.',
  })
  failingSince: string | null;

  @ApiProperty({
    enum: WEBHOOK_DISABLED_REASONS,
    nullable: true,
    example: null,
    description:
      'Why the service disabled the configuration: `gone` (the receiver answered 410 Gone) or `failing` (five days of nothing but failures). Null when enabled or disabled by its owner.',
  })
  disabledReason: WebhookDisabledReason | null;
}

export class SavedWebhookDto extends WebhookDto {
  @ApiProperty({
    required: false,
    example: 'whsec_Q2xhcmsgS2VudCBpcyBTdXBlcm1hbiBhbmQgc2hlIGtub3dzIGl0IQ==',
    description:
      'The signing secret: `whsec_` + base64 of 32 random bytes. Present only when the configuration was created or its secret rotated by this call; it cannot be shown again.',
  })
  secret?: string;
}
