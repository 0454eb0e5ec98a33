import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { checksumAddress, isWalletAddress } from './wallet-address.js';

const ADDRESS_EXAMPLE = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * A wallet address field: validated as the API guide says, then normalised to its EIP-55 form so handlers
 * only ever see one spelling. Also documents the field in OpenAPI.
 */
export function IsWalletAddress(
  apiOptions: ApiPropertyOptions = {},
  validationOptions?: ValidationOptions,
): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      type: String,
      pattern: '^0x[0-9a-fA-F]{40}$',
      example: ADDRESS_EXAMPLE,
      description: 'Wallet address: 0x and 40 hex digits, lowercase, uppercase or valid EIP-55 mixed case.',
      ...apiOptions,
    } as ApiPropertyOptions),
    ValidateBy(
      {
        name: 'isWalletAddress',
        validator: {
          validate: (value) => isWalletAddress(value),
          defaultMessage: (args) =>
            `${args?.property ?? 'address'} must be a wallet address (0x and 40 hex digits; mixed case must be a valid EIP-55 checksum)`,
        },
      },
      validationOptions,
    ),
    Transform(({ value }) => (isWalletAddress(value) ? checksumAddress(value) : value), {
      toClassOnly: true,
    }),
  );
}
