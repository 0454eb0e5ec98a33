import { getAddress } from 'viem';

export type Address = `0x${string}`;

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Lowercase, uppercase hex or a valid EIP-55 mixed-case address is accepted; a mixed-case
 * address whose checksum is wrong is not.
 */
export function isWalletAddress(value: unknown): value is string {
  if (typeof value !== 'string' || !HEX_ADDRESS.test(value)) return false;
  const body = value.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return checksumAddress(value) === value;
}

/** EIP-55 checksum form: how addresses are returned (viem keeps the forms it computed recently). */
export function checksumAddress(value: string): Address {
  return getAddress(value.toLowerCase());
}

/** Lowercase form: how addresses are stored and compared. */
export function storageAddress(value: string): string {
  return value.toLowerCase();
}
