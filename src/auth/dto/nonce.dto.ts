import { ApiProperty } from '@nestjs/swagger';
import { IsWalletAddress } from '../../common/address/is-wallet-address.decorator.js';
import type { Address } from '../../common/address/wallet-address.js';

export class NonceRequestDto {
  @IsWalletAddress({ description: 'The wallet that will sign in.' })
  address: Address;
}

export class NonceResponseDto {
  @ApiProperty({
    example: 'k3Jf9QmZp2XvT8rLwB6nYc',
    description: 'At least 128 random bits, alphanumeric. Sign it, or (recommended) sign `message`.',
  })
  nonce: string;

  @ApiProperty({
    description:
      'The complete EIP-4361 (Sign-In with Ethereum) message, containing the nonce, to sign with personal_sign.',
    example:
      'localhost:3000 wants you to sign in with your Ethereum account:\n0x52908400098527886E0F7030069857D2E4169EE7\n\nSign in to Tollgate.\n\nURI: http://localhost:3000\nVersion: 1\nChain ID: 1\nNonce: k3Jf9QmZp2XvT8rLwB6nYc\nIssued At: 2026-11-22T01:30:00.000Z\nExpiration Time: 2026-11-22T01:40:00.000Z',
  })
  message: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:30:00.000Z' })
  issuedAt: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T01:40:00.000Z',
    description: 'The nonce is single use and expires at this time.',
  })
  expiresAt: string;
}
