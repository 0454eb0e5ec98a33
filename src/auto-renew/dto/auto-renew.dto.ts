import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { IsWalletAddress } from '../../common/address/is-wallet-address.decorator.js';
import type { Address } from '../../common/address/wallet-address.js';

const OTHERS =
  'Another address needs an operator credential (OPERATOR_ADDRESSES), else 403 `address_forbidden`.';
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const UINT = /^(0|[1-9]\d{0,77})$/;
/** Most periods one mandate may cover (100 years of monthly periods). */
export const MAX_MANDATE_PERIODS = 1200;
/** Periods a `free` registration covers without `periods`. */
export const FREE_DEFAULT_PERIODS = 120;

/** The EIP-712 `Mandate` the payer signed (src/auto-renew/mandate.ts), integers as decimal strings. */
export class MandateDto {
  @IsWalletAddress({ description: "The payer: the subscription's wallet." })
  payer: Address;

  @IsWalletAddress({ description: 'The ERC-20 token (PAYMENT_TOKEN_ADDRESS; `GET /subscriptions/plan`).' })
  token: Address;

  @IsWalletAddress({ description: 'Who is paid (PAYMENT_RECEIVER_ADDRESS; `GET /subscriptions/plan`).' })
  payee: Address;

  @ApiProperty({
    example: '5000000',
    description: "Per period, in the token's smallest unit: the plan's price.",
  })
  @IsString()
  @Matches(UINT, { message: 'mandate.amount must be a whole number as a decimal string' })
  amount: string;

  @ApiProperty({ example: '2592000', description: "The plan's period, in seconds (decimal string)." })
  @IsString()
  @Matches(UINT, { message: 'mandate.periodSeconds must be a whole number as a decimal string' })
  periodSeconds: string;

  @ApiProperty({
    example: '1798507800',
    description:
      "Unix seconds at which period 0 begins: the subscription's current period end, rounded down.",
  })
  @IsString()
  @Matches(UINT, { message: 'mandate.start must be a whole number as a decimal string' })
  start: string;

  @ApiProperty({ example: '12', description: `How many periods it may charge, 1 to ${MAX_MANDATE_PERIODS}.` })
  @IsString()
  @Matches(/^[1-9]\d{0,3}$/, { message: `mandate.periods must be 1 to ${MAX_MANDATE_PERIODS}` })
  periods: string;

  @ApiProperty({
    pattern: '^0x[0-9a-fA-F]{64}$',
    example: '0x9f2c3d1e5b7a8c6d4e2f1a3b5c7d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d',
    description: 'Any 32 bytes that tell this mandate apart from another with the same terms.',
  })
  @IsString()
  @Matches(/^0x[0-9a-fA-F]{64}$/, { message: 'mandate.salt must be 0x and 64 hex digits' })
  salt: string;
}

/** `POST /subscriptions/auto-renew`. */
export class EnableAutoRenewDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's. ${OTHERS}`,
  })
  address?: Address;

  @ApiProperty({
    type: MandateDto,
    required: false,
    description: 'Under `erc20`: the mandate the payer signed (required). Under `free`: refused.',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => MandateDto)
  mandate?: MandateDto;

  @ApiProperty({
    required: false,
    pattern: '^0x[0-9a-fA-F]*$',
    example: `0x${'1b'.repeat(65)}`,
    description:
      "Under `erc20`: the payer's EIP-712 signature of `mandate` (`eth_signTypedData_v4`): 65 bytes from an ordinary " +
      'wallet, or ERC-1271 / ERC-6492 from a smart wallet. Under `free`: refused.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^0x(?:[0-9a-fA-F]{2}){64,10000}$/, {
    message: 'signature must be 0x and an even number of hex digits',
  })
  signature?: string;

  @ApiProperty({
    required: false,
    type: 'integer',
    minimum: 1,
    maximum: MAX_MANDATE_PERIODS,
    example: 12,
    description: `Under \`free\` only: how many periods to renew (default ${FREE_DEFAULT_PERIODS}).`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_MANDATE_PERIODS)
  periods?: number;
}

/** `POST /subscriptions/auto-renew/disable` and `/retry`. */
export class AutoRenewAddressDto {
  @IsOptional()
  @IsWalletAddress({
    required: false,
    description: `The subscription's wallet; default: the caller's. ${OTHERS}`,
  })
  address?: Address;
}

export const MANDATE_EXAMPLE: MandateDto = {
  payer: ADDRESS,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payee: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  amount: '5000000',
  periodSeconds: '2592000',
  start: '1798507800',
  periods: '12',
  salt: '0x9f2c3d1e5b7a8c6d4e2f1a3b5c7d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d',
} as MandateDto;
