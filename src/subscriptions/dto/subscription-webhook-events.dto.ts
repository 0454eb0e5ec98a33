import { ApiProperty } from '@nestjs/swagger';
import { PaymentDto, SubscriptionDto, SubscriptionPlanDto } from './subscription.dto.js';

const EVENT_ID = '0b8e3f52-6c1d-4f7a-9e2b-7d4c1a5f3e60';
const AT = '2026-11-22T01:30:00.000Z';

/** `data` of the subscription events: the subscription after the change, and its period end before it. */
export class SubscriptionChangeDataDto extends SubscriptionDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'The period end before the change; null for a first renewal.',
  })
  previousPeriodEnd: string | null;
}

export class SubscriptionRenewedDataDto extends SubscriptionChangeDataDto {
  @ApiProperty({ type: 'integer', example: 1, description: 'How many periods the renewal bought.' })
  periods: number;

  @ApiProperty({ type: PaymentDto, description: 'What paid for it.' })
  payment: PaymentDto;
}

export class SubscriptionPlanChangedDataDto extends SubscriptionChangeDataDto {
  @ApiProperty({
    type: SubscriptionPlanDto,
    description: 'The plan it changed from (`plan` is the one it is on now).',
  })
  previousPlan: SubscriptionPlanDto;

  @ApiProperty({
    format: 'date-time',
    example: AT,
    description:
      'When the change took effect: at the request for a dearer plan (whose period starts then and ends at ' +
      '`currentPeriodEnd`, the time left converted), or the period end it was scheduled for.',
  })
  effectiveAt: string;

  @ApiProperty({
    example: false,
    description: 'false: a change to a dearer plan, at once; true: a change scheduled for the period end.',
  })
  scheduled: boolean;
}

export class SubscriptionCanceledDataDto extends SubscriptionChangeDataDto {
  @ApiProperty({ example: false, description: 'Whether the period ended now rather than at its end.' })
  immediate: boolean;

  @ApiProperty({
    required: false,
    enum: ['mandate_revoked', 'mandate_ended'],
    example: 'mandate_revoked',
    description:
      'Present when the service canceled at period end because the automatic renewal can no longer charge ' +
      '(addition): the payer revoked the mandate, or its last period was charged.',
  })
  reason?: string;

  @ApiProperty({
    required: false,
    example: 'The mandate was revoked on chain: renew manually or register a new one.',
    description: 'With `reason`: the same in words.',
  })
  message?: string;
}

export class SubscriptionExpiredDataDto extends SubscriptionDto {
  @ApiProperty({
    enum: ['canceled', 'not_renewed', 'trial_ended', 'payment_failed'],
    example: 'not_renewed',
    description:
      'Why the period was not followed by another: `canceled` by the holder (or an operator), `not_renewed`, ' +
      '`trial_ended` (addition): the period was a trial and nothing was paid to follow it, or `payment_failed` ' +
      '(addition): its automatic charge kept failing until the grace ran out.',
  })
  reason: 'canceled' | 'not_renewed' | 'trial_ended' | 'payment_failed';
}

export class SubscriptionPaymentFailedDataDto extends SubscriptionDto {
  @ApiProperty({
    example: 'insufficient_allowance',
    description: 'What stood in the way (AutoRenewFailureDto.reason).',
  })
  reason: string;

  @ApiProperty({
    example:
      'The allowance is 2 USDC and the period costs 5 USDC: approve the charging contract for at least 5 USDC.',
    description: 'The same in words, with what to do.',
  })
  message: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-22T02:30:00.000Z',
    description:
      'When the charge is tried again (AUTO_RENEW_RETRY_SECONDS; at once after `POST /subscriptions/auto-renew/retry`); ' +
      'null when no attempt is left before the grace ends.',
  })
  nextAttemptAt: string | null;
}

/** `subscription.payment_failed`: an automatic charge failed; the subscription is `past_due`. */
export class SubscriptionPaymentFailedEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['subscription.payment_failed'], example: 'subscription.payment_failed' })
  type: 'subscription.payment_failed';

  @ApiProperty({ format: 'date-time', example: AT, description: 'When the charge failed.' })
  timestamp: string;

  @ApiProperty({ type: SubscriptionPaymentFailedDataDto })
  data: SubscriptionPaymentFailedDataDto;
}

/** `subscription.recovered`: a `past_due` subscription was paid for. */
export class SubscriptionRecoveredEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['subscription.recovered'], example: 'subscription.recovered' })
  type: 'subscription.recovered';

  @ApiProperty({ format: 'date-time', example: AT, description: 'When it was paid.' })
  timestamp: string;

  @ApiProperty({ type: SubscriptionDto, description: 'The subscription after the payment.' })
  data: SubscriptionDto;
}

/** `subscription.renewed`: a renewal was accepted. */
export class SubscriptionRenewedEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['subscription.renewed'], example: 'subscription.renewed' })
  type: 'subscription.renewed';

  @ApiProperty({ format: 'date-time', example: AT, description: 'When the event happened.' })
  timestamp: string;

  @ApiProperty({ type: SubscriptionRenewedDataDto })
  data: SubscriptionRenewedDataDto;
}

/** `subscription.plan_changed`: a change of plan took effect (at once, or at the period end it was scheduled for). */
export class SubscriptionPlanChangedEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['subscription.plan_changed'], example: 'subscription.plan_changed' })
  type: 'subscription.plan_changed';

  @ApiProperty({ format: 'date-time', example: AT, description: 'When the change was made.' })
  timestamp: string;

  @ApiProperty({ type: SubscriptionPlanChangedDataDto })
  data: SubscriptionPlanChangedDataDto;
}

/** `subscription.canceled`: a cancel was accepted (at period end or immediate). */
export class SubscriptionCanceledEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['subscription.canceled'], example: 'subscription.canceled' })
  type: 'subscription.canceled';

  @ApiProperty({ format: 'date-time', example: AT, description: 'When the event happened.' })
  timestamp: string;

  @ApiProperty({ type: SubscriptionCanceledDataDto })
  data: SubscriptionCanceledDataDto;
}

/** `subscription.expired`: a period ran out (sent within 60 s of its end). */
export class SubscriptionExpiredEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['subscription.expired'], example: 'subscription.expired' })
  type: 'subscription.expired';

  @ApiProperty({ format: 'date-time', example: AT, description: 'The end of the period that ran out.' })
  timestamp: string;

  @ApiProperty({ type: SubscriptionExpiredDataDto })
  data: SubscriptionExpiredDataDto;
}

/** `data` of `entitlements.updated`. */
export class EntitlementsUpdatedDataDto {
  @ApiProperty({ example: '0x52908400098527886E0F7030069857D2E4169EE7', description: 'The wallet (EIP-55).' })
  address: string;

  @ApiProperty({ type: SubscriptionPlanDto, description: "The subscription's plan." })
  plan: SubscriptionPlanDto;

  @ApiProperty({
    type: String,
    isArray: true,
    example: ['api.calls'],
    description: 'The features in force from now on (empty: none).',
  })
  features: string[];
}

/** `entitlements.updated`: the set of features a wallet may use changed. */
export class EntitlementsUpdatedEventDto {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The event id (also `webhook-id`).' })
  id: string;

  @ApiProperty({ enum: ['entitlements.updated'], example: 'entitlements.updated' })
  type: 'entitlements.updated';

  @ApiProperty({ format: 'date-time', example: AT, description: 'When the features changed.' })
  timestamp: string;

  @ApiProperty({ type: EntitlementsUpdatedDataDto })
  data: EntitlementsUpdatedDataDto;
}
