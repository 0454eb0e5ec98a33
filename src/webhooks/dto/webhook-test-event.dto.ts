import { ApiProperty } from '@nestjs/swagger';

export class WebhookTestDataDto {
  @ApiProperty({
    example: '0x52908400098527886E0F7030069857D2E4169EE7',
    description: 'The wallet that asked.',
  })
  address: string;

  @ApiProperty({ example: 'Test event from Tollgate, sent by POST /webhooks/test.' })
  message: string;
}

/** `webhook.test`: sent by POST /webhooks/test. */
export class WebhookTestEventDto {
  @ApiProperty({
    format: 'uuid',
    example: '0b8e3f52-6c1d-4f7a-9e2b-7d4c1a5f3e60',
    description: 'The event id (also `webhook-id`).',
  })
  id: string;

  @ApiProperty({ enum: ['webhook.test'], example: 'webhook.test' })
  type: 'webhook.test';

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z', description: 'When it was sent.' })
  timestamp: string;

  @ApiProperty({ type: WebhookTestDataDto })
  data: WebhookTestDataDto;
}
