import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsWalletAddress } from '../../common/address/is-wallet-address.decorator.js';
import type { Address } from '../../common/address/wallet-address.js';
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT, PageQueryDto } from '../../common/pagination/cursor-page.js';

const OTHERS =
  'Another address needs an operator credential (OPERATOR_ADDRESSES), else 403 `address_forbidden`.';

export class SubscriptionAddressQueryDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's own (addition). ${OTHERS}`,
  })
  address?: Address;
}

/** The history's query: whose, and which page of it (the history always pages). */
export class SubscriptionHistoryQueryDto extends PageQueryDto {
  // Redeclared for its documentation only (the validation is PageQueryDto's): the default applies without a cursor.
  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: 1,
    maximum: PAGE_MAX_LIMIT,
    description: `Page size (default ${PAGE_DEFAULT_LIMIT}). When older changes follow, the answer carries an \`X-Next-Cursor\` header.`,
  })
  declare limit?: number;

  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's own (addition). ${OTHERS}`,
  })
  address?: Address;
}

/** The proof of an on-chain payment (`PAYMENT_GATEWAY=erc20`). */
export class RenewalPaymentDto {
  @ApiProperty({
    pattern: '^0x[0-9a-fA-F]{64}$',
    example: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
    description:
      'Hash of the mined transaction that transferred the price (or a multiple of it) of the payment token to the ' +
      'receiving address (see GET /subscriptions/plan). Each transfer is credited once.',
  })
  @IsDefined()
  @Matches(/^0x[0-9a-fA-F]{64}$/, {
    message: 'payment.txHash must be a transaction hash (0x and 64 hex digits)',
  })
  txHash: string;
}

export class RenewSubscriptionDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's. ${OTHERS}`,
  })
  address?: Address;

  @ApiProperty({
    type: RenewalPaymentDto,
    required: false,
    description:
      'Required when the gateway is `erc20` (else 402 `payment_required`); refused under `free` and `operator` ' +
      '(400 `payment_not_expected`).',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RenewalPaymentDto)
  payment?: RenewalPaymentDto;

  @ApiProperty({
    required: false,
    example: 'pro',
    maxLength: 32,
    description:
      "The plan to subscribe to (addition; `GET /plans`); default: the subscription's current plan (the scheduled " +
      'one, `pendingPlan`, when a change is scheduled), or `default`. ' +
      'Unknown: 404 `plan_not_found`; archived, unless it is the plan the subscription is on: 409 `plan_archived`; ' +
      "another plan than the active subscription's: 409 `plan_change_required` (use `POST /subscriptions/change-plan`), " +
      'or `plan_change_pending` when a change to another is scheduled.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  plan?: string;
}

export class ChangePlanDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's. ${OTHERS}`,
  })
  address?: Address;

  @ApiProperty({
    example: 'pro',
    maxLength: 32,
    description:
      'The plan to change to (`GET /plans`). Dearer per second than the current plan: at once, the time left ' +
      'converted; as dear or cheaper: at the period end (`pendingPlan`); the current plan: drops a scheduled ' +
      'change. Unknown: 404 `plan_not_found`; archived: 409 `plan_archived`.',
  })
  @IsDefined()
  @IsString()
  @MaxLength(32)
  plan: string;
}

export class CancelSubscriptionDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's. ${OTHERS}`,
  })
  address?: Address;

  @ApiProperty({
    required: false,
    default: false,
    example: false,
    description:
      'false: keep the paid period and stop at its end (`cancelAtPeriodEnd`). true: end the period now (`canceled`).',
  })
  @IsOptional()
  @IsBoolean()
  immediate?: boolean;
}
