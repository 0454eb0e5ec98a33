import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { IsWalletAddress } from '../../common/address/is-wallet-address.decorator.js';
import type { Address } from '../../common/address/wallet-address.js';

const OTHERS =
  'Another address needs an operator credential (OPERATOR_ADDRESSES), else 403 `address_forbidden`.';

export class SubscriptionAddressQueryDto {
  @IsWalletAddress({ description: `The subscription's wallet. ${OTHERS}` })
  address: Address;
}

export class RenewSubscriptionDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's. ${OTHERS}`,
  })
  address?: Address;
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
