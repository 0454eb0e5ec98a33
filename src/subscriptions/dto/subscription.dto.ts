import { ApiProperty } from '@nestjs/swagger';
import type { SubscriptionStatus } from '../subscription-state.js';

const ADDRESS_EXAMPLE = '0x52908400098527886E0F7030069857D2E4169EE7';

/** The subscription object (CONTRACT.md section 5): returned by status, renew and cancel. */
export class SubscriptionDto {
  @ApiProperty({ example: ADDRESS_EXAMPLE, description: 'The wallet, in EIP-55 checksum form.' })
  address: string;

  @ApiProperty({
    enum: ['none', 'active', 'canceled', 'expired'],
    example: 'active',
    description:
      '`none`: never subscribed. `active`: now is before `currentPeriodEnd` (possibly with `cancelAtPeriodEnd`). ' +
      '`canceled`: ended by a cancel (immediate, or the period ran out after one). `expired`: the period ran out ' +
      'without a cancel. Computed when read, from the timestamps.',
  })
  status: SubscriptionStatus;

  @ApiProperty({
    example: true,
    description: 'Whether the subscription is active now (`status` is `active`).',
  })
  active: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T01:30:00.000Z' })
  currentPeriodStart: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-22T01:30:00.000Z',
    description: 'The first instant no longer covered.',
  })
  currentPeriodEnd: string | null;

  @ApiProperty({
    example: false,
    description: 'The holder cancelled: the paid period runs to its end and is then not renewed.',
  })
  cancelAtPeriodEnd: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'When the latest cancel was accepted; cleared by a renewal.',
  })
  canceledAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T01:30:00.000Z' })
  createdAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T01:30:00.000Z' })
  updatedAt: string | null;
}

/** One entry of `GET /subscriptions/history`. */
export class SubscriptionEventDto {
  @ApiProperty({ format: 'uuid', example: '5f0c6f0e-3c1b-4a51-9a7c-3f9b1d2e8a41' })
  id: string;

  @ApiProperty({ enum: ['renewed', 'canceled', 'expired'], example: 'renewed' })
  type: 'renewed' | 'canceled' | 'expired';

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T01:30:00.000Z',
    description: 'When it took effect; for `expired`, the end of the period that ran out.',
  })
  at: string;

  @ApiProperty({
    example: ADDRESS_EXAMPLE,
    description: 'The wallet (EIP-55) whose session or API key asked for it, or `system` for an expiry.',
  })
  actor: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'The period end before the change; null for the first renewal.',
  })
  previousPeriodEnd: string | null;

  @ApiProperty({
    format: 'date-time',
    example: '2026-12-22T01:30:00.000Z',
    description: 'The period end after it.',
  })
  currentPeriodEnd: string;
}
