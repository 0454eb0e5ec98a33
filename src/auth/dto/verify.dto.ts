import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength, ValidateBy } from 'class-validator';
import { IsWalletAddress } from '../../common/address/is-wallet-address.decorator.js';
import type { Address } from '../../common/address/wallet-address.js';
import { isHexSignature } from '../signature/wallet-signature.verifier.js';

export class VerifyRequestDto {
  @IsWalletAddress({ description: 'The wallet that signed.' })
  address: Address;

  @ApiProperty({
    pattern: '^0x([0-9a-fA-F]{2})+$',
    example:
      '0x6e1c58e2b0a1bb8d2c3f4f2f5d8a1e0c7b9d6a4f3e2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170695a4b3c2d1e0f9a8b7c6d5e4f3a21b',
    description:
      'EIP-191 personal_sign signature, 0x-prefixed hex: 65 bytes for an ordinary wallet, longer for smart wallets (ERC-1271, ERC-6492).',
  })
  @ValidateBy({
    name: 'isHexSignature',
    validator: {
      validate: (value) => typeof value === 'string' && isHexSignature(value),
      defaultMessage: () => 'signature must be a 0x-prefixed hex signature',
    },
  })
  signature: `0x${string}`;

  @ApiProperty({
    required: false,
    maxLength: 4096,
    description:
      'The EIP-4361 message that was signed, exactly as returned by POST /auth/nonce. Without it the signature may be over that message or over the bare nonce.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  message?: string;
}

export class SessionResponseDto {
  @ApiProperty({
    description: 'Session JWT (HS256). Also set as the HTTP-only `tg_session` cookie.',
    example: 'eyJhbGciOiJIUzI1NiJ9…',
  })
  token: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-23T01:30:00.000Z',
    description: 'When the token expires (its `exp`).',
  })
  expiresAt: string;
}

export class LogoutResponseDto {
  @ApiProperty({ example: true })
  revoked: true;
}

export class LogoutEverywhereRequestDto {
  @ApiProperty({
    required: false,
    default: false,
    example: true,
    description:
      'Also revoke every live API key created by a session of this wallet (`createdBy.type = session`), and the keys those keys created, in the same transaction (addition). Keys created otherwise stay.',
  })
  @IsOptional()
  @IsBoolean()
  revokeKeys?: boolean;
}

export class LogoutEverywhereResponseDto {
  @ApiProperty({ example: true })
  revoked: true;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T03:00:00.000Z',
    description:
      'When the wallet signed out everywhere. Every session token of the wallet issued before this answer, the calling one included, is refused from now on, however close in time.',
  })
  notBefore: string;

  @ApiProperty({
    example: 0,
    description:
      'How many API keys were revoked with `revokeKeys` (each with its `api_key.revoked` event); 0 without it.',
  })
  revokedKeys: number;
}

export class CurrentSessionDto {
  @ApiProperty({
    example: '0x52908400098527886E0F7030069857D2E4169EE7',
    description: 'The wallet this credential acts for.',
  })
  address: string;

  @ApiProperty({ enum: ['jwt', 'api_key'], example: 'jwt' })
  via: 'jwt' | 'api_key';

  @ApiProperty({
    enum: ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'],
    isArray: true,
    example: ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'],
  })
  scopes: string[];

  @ApiProperty({ description: 'Whether the wallet is an operator (may act on any address).', example: false })
  operator: boolean;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the session JWT expires; null for API keys.',
  })
  expiresAt: string | null;
}
