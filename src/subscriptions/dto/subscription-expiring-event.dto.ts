import { ApiProperty } from '@nestjs/swagger';
import { SubscriptionDto } from './subscription.dto.js';

/**
 * `data` of `subscription.expiring`: the subscription as it stood when the reminder was recorded, and how long its
 * period has left.
 */
export class SubscriptionExpiringDataDto extends SubscriptionDto {
  @ApiProperty({
    type: 'integer',
    example: 259_195,
    description:
      'Seconds from the event to `currentPeriodEnd` (at most SUBSCRIPTION_EXPIRING_NOTICE_HOURS × 3600; less when ' +
      'the period was already that close when it began, or when no instance ran as it entered the notice).',
  })
  endsInSeconds: number;
}

/**
 * `subscription.expiring`: an active period that is not canceled at its end ends within
 * SUBSCRIPTION_EXPIRING_NOTICE_HOURS (default 72). Sent once per period end; a renewal moves the end and arms the
 * next reminder.
 */
export class SubscriptionExpiringEventDto {
  @ApiProperty({
    format: 'uuid',
    example: '0b8e3f52-6c1d-4f7a-9e2b-7d4c1a5f3e60',
    description: 'The event id (also `webhook-id`).',
  })
  id: string;

  @ApiProperty({ enum: ['subscription.expiring'], example: 'subscription.expiring' })
  type: 'subscription.expiring';

  @ApiProperty({
    format: 'date-time',
    example: '2026-12-19T01:30:04.512Z',
    description: 'When the reminder was recorded.',
  })
  timestamp: string;

  @ApiProperty({ type: SubscriptionExpiringDataDto })
  data: SubscriptionExpiringDataDto;
}
