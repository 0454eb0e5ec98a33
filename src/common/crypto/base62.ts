import { randomBytes } from 'node:crypto';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Bytes at or above the largest multiple of 62 that fits in a byte are discarded: mapping them with `% 62`
// would make the first 256 % 62 symbols more likely than the rest.
const UNBIASED_BYTE_LIMIT = 256 - (256 % BASE62_ALPHABET.length);

/** `length` characters drawn uniformly from the base62 alphabet by a CSPRNG (about 5.95 bits each). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // A little more than needed, since about 3% of bytes are rejected.
    for (const byte of randomBytes(length - out.length + 4)) {
      if (byte < UNBIASED_BYTE_LIMIT && out.length < length) {
        out += BASE62_ALPHABET[byte % BASE62_ALPHABET.length];
      }
    }
  }
  return out;
}
