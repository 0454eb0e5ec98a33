import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from '../webhook-delivery.entity.js';

export class TestWebhookDto {
  @ApiProperty({
    required: false,
    format: 'uuid',
    example: '3f6c2a9e-1b7d-4c52-8e0a-5d9b7f1c2e34',
    description:
      "The configuration to test (404 unless it is the caller's; sent even if disabled). Without it, each enabled configuration of the caller gets one.",
  })
  @IsOptional()
  @IsUUID()
  id?: string;
}

export class DeliveryResultDto {
  @ApiProperty({
    format: 'uuid',
    example: '9a1f3c7e-55d2-4e8b-b0c4-2f7e6d1a8b90',
    description: 'The delivery, as listed by GET /webhooks/deliveries and re-sent by its retry route.',
  })
  deliveryId: string;

  @ApiProperty({ format: 'uuid', example: '3f6c2a9e-1b7d-4c52-8e0a-5d9b7f1c2e34' })
  webhookId: string;

  @ApiProperty({ example: 'https://api.example.com/webhooks/tollgate' })
  url: string;

  @ApiProperty({ example: true, description: 'The receiver answered 2xx within 10 s.' })
  success: boolean;

  @ApiProperty({
    nullable: true,
    type: 'integer',
    example: 200,
    description: "The receiver's HTTP status; null when no response arrived.",
  })
  statusCode: number | null;

  @ApiProperty({ type: 'integer', example: 42 })
  durationMs: number;

  @ApiProperty({
    nullable: true,
    type: String,
    example: null,
    description:
      'Why the attempt failed, as `<kind>: <detail>`: `http_status: 500`, `timeout: …`, `connection_error: ECONNREFUSED`, `webhook_url_forbidden: private` (the URL now resolves to a refused address), …',
  })
  error: string | null;

  @ApiProperty({
    enum: WEBHOOK_DELIVERY_STATUSES,
    example: 'succeeded',
    description: "The delivery's status after it.",
  })
  status: WebhookDeliveryStatus;
}

export class TestWebhookResponseDto {
  @ApiProperty({
    type: [DeliveryResultDto],
    description: 'One per configuration tested, in configuration order.',
  })
  deliveries: DeliveryResultDto[];
}
