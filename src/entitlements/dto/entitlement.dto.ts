import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { IsWalletAddress } from '../../common/address/is-wallet-address.decorator.js';
import type { Address } from '../../common/address/wallet-address.js';
import { PLAN_FEATURE } from '../../plans/plan.js';

const ADDRESS_EXAMPLE = '0x52908400098527886E0F7030069857D2E4169EE7';
const UNTIL_DOC =
  'The end of the current period while entitled (the first instant no longer covered; while `past_due`, the end of ' +
  'the grace), else null. A renewal or a plan change moves it: read again rather than caching past it.';

export class EntitlementsQueryDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description:
      "The wallet; default: the caller's own. Another address needs an operator credential (OPERATOR_ADDRESSES), " +
      'else 403 `address_forbidden`.',
  })
  address?: Address;

  @ApiProperty({
    required: false,
    pattern: PLAN_FEATURE.source,
    example: 'export.csv',
    description:
      'One feature (entitlement key: 1–64 of `a-z 0-9 . _ -`) to ask about; without it, the whole list. Another ' +
      'form is 400 `validation_failed`.',
  })
  @IsOptional()
  @Matches(PLAN_FEATURE, { message: 'feature must be 1-64 characters of a-z, 0-9, ".", "_" and "-"' })
  feature?: string;
}

/** The plan a wallet is on, as its subscription names it. */
export class EntitlementPlanDto {
  @ApiProperty({ example: 'pro', description: 'The plan id; `default` when the wallet never chose one.' })
  id: string;

  @ApiProperty({ example: 'Pro' })
  name: string;
}

/** Whether a wallet may use one feature now. */
export class EntitlementDto {
  @ApiProperty({ example: ADDRESS_EXAMPLE, description: 'The wallet, in EIP-55 checksum form.' })
  address: string;

  @ApiProperty({ example: 'export.csv' })
  feature: string;

  @ApiProperty({
    example: true,
    description:
      "Whether the feature is in force now: listed by the wallet's plan, while its subscription is `active` or " +
      '`trialing`.',
  })
  entitled: boolean;

  @ApiProperty({ type: EntitlementPlanDto })
  plan: EntitlementPlanDto;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-22T01:30:00.000Z',
    description: UNTIL_DOC,
  })
  until: string | null;
}

/** Every feature a wallet may use now. */
export class EntitlementListDto {
  @ApiProperty({ example: ADDRESS_EXAMPLE, description: 'The wallet, in EIP-55 checksum form.' })
  address: string;

  @ApiProperty({ type: EntitlementPlanDto })
  plan: EntitlementPlanDto;

  @ApiProperty({
    type: [String],
    example: ['api.calls', 'export.csv'],
    description:
      "The features in force now: the plan's, while the subscription is `active` or `trialing`; else empty.",
  })
  features: string[];

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-22T01:30:00.000Z',
    description: UNTIL_DOC.replace('while entitled', 'while any feature is in force'),
  })
  until: string | null;
}
