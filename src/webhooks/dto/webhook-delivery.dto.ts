import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/cursor-page.js';
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from '../webhook-delivery.entity.js';

/** `limit` (default 50 here, as before pagination existed) and `cursor`, and which configuration. */
export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiProperty({
    required: false,
    format: 'uuid',
    description:
      "Only this configuration's attempts (404 unless it is the caller's). Without it, all of the caller's.",
  })
  @IsOptional()
  @IsUUID()
  webhookId?: string;
}

export class WebhookAttemptDto {
  @ApiProperty({ format: 'uuid', example: 'c2d8e4f1-7a3b-4e69-9d05-1b6f8a2c3e47' })
  id: string;

  @ApiProperty({
    format: 'uuid',
    example: '9a1f3c7e-55d2-4e8b-b0c4-2f7e6d1a8b90',
    description: 'The delivery this attempt belongs to: POST /webhooks/deliveries/{id}/retry re-sends it.',
  })
  deliveryId: string;

  @ApiProperty({ format: 'uuid', example: '3f6c2a9e-1b7d-4c52-8e0a-5d9b7f1c2e34' })
  webhookId: string;

  @ApiProperty({
    format: 'uuid',
    example: '6f1c1a52-6b9e-4a53-9f43-0d6f6c3f2d10',
    description: 'The event id: the body `id` and the `webhook-id` header of every attempt of this delivery.',
  })
  eventId: string;

  @ApiProperty({ example: 'subscription.renewed' })
  eventType: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.123Z' })
  attemptedAt: string;

  @ApiProperty({ example: false })
  success: boolean;

  @ApiProperty({ nullable: true, type: 'integer', example: 500 })
  statusCode: number | null;

  @ApiProperty({ type: 'integer', example: 87 })
  durationMs: number;

  @ApiProperty({ nullable: true, type: String, example: 'http_status: 500' })
  error: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    example: '{"error":"database unavailable"}',
    description:
      "The start of the receiver's response body (at most 1 KiB, NUL characters replaced by U+FFFD). Null when no response arrived, and when the receiver was reached at a private, loopback or otherwise non-public address (allowed only with `WEBHOOK_ALLOW_PRIVATE`): bodies of internal services are never kept.",
  })
  responseBody: string | null;

  @ApiProperty({
    enum: WEBHOOK_DELIVERY_STATUSES,
    example: 'pending',
    description:
      "The delivery's current status: `pending` (another attempt is scheduled), `succeeded` or `failed`.",
  })
  deliveryStatus: WebhookDeliveryStatus;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    example: '2026-11-22T01:30:05.000Z',
    description: 'When the next automatic attempt is due, while the delivery is pending.',
  })
  nextAttemptAt: string | null;
}
