import { getAddress } from 'viem';
import { LRUCache } from 'lru-cache';

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

const checksummed = new LRUCache<string, Address>({ max: 10_000 });

/**
 * EIP-55 checksum form: how addresses are returned. The form of recently seen addresses is kept (a keccak-256 per
 * call otherwise, on every authenticated request).
 */
export function checksumAddress(value: string): Address {
  const lower = value.toLowerCase();
  let result = checksummed.get(lower);
  if (result === undefined) {
    result = getAddress(lower);
    checksummed.set(lower, result);
  }
  return result;
}

/** Lowercase form: how addresses are stored and compared. */
export function storageAddress(value: string): string {
  return value.toLowerCase();
}
