import { ApiProperty } from '@nestjs/swagger';
import { SubscriptionDto } from './subscription.dto.js';

/** `data` of `subscription.trial_will_end`: the subscription when the reminder was recorded, and its trial's time left. */
export class SubscriptionTrialWillEndDataDto extends SubscriptionDto {
  @ApiProperty({
    type: 'integer',
    example: 259_195,
    description:
      'Seconds from the event to `trialEnd` (at most SUBSCRIPTION_EXPIRING_NOTICE_HOURS × 3600; less when the ' +
      'trial was shorter than that, or when no instance ran as it entered the notice).',
  })
  trialEndsInSeconds: number;
}

/**
 * `subscription.trial_will_end`: a trial that is not canceled ends within SUBSCRIPTION_EXPIRING_NOTICE_HOURS (default
 * 72), whether or not a paid period follows it (`currentPeriodEnd` later than `trialEnd`). Sent once per trial.
 */
export class SubscriptionTrialWillEndEventDto {
  @ApiProperty({
    format: 'uuid',
    example: '0b8e3f52-6c1d-4f7a-9e2b-7d4c1a5f3e60',
    description: 'The event id (also `webhook-id`).',
  })
  id: string;

  @ApiProperty({ enum: ['subscription.trial_will_end'], example: 'subscription.trial_will_end' })
  type: 'subscription.trial_will_end';

  @ApiProperty({
    format: 'date-time',
    example: '2026-12-19T01:30:04.512Z',
    description: 'When the reminder was recorded.',
  })
  timestamp: string;

  @ApiProperty({ type: SubscriptionTrialWillEndDataDto })
  data: SubscriptionTrialWillEndDataDto;
}
