import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62_ALPHABET, randomBase62 } from '../common/crypto/base62.js';

/** Every key starts with this, so a Bearer token can be routed to API-key auth without a lookup. */
export const API_KEY_PREFIX = 'tg_';

const RANDOM_LENGTH = 32;
// 62^6 > 2^32, so six characters hold any CRC32 value.
const CHECKSUM_LENGTH = 6;
const PREFIX_DISPLAY_LENGTH = 10;
const LAST_DISPLAY_LENGTH = 4;

/** `tg_` + 32 random base62 characters + 6 base62 characters of CRC32 over the random part. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const RANDOM_START = API_KEY_PREFIX.length;
const CHECKSUM_START = RANDOM_START + RANDOM_LENGTH;

export interface GeneratedApiKey {
  /** Shown to the integrator once; never stored. */
  key: string;
  /** SHA-256 of the key: the only form that is stored and looked up. */
  digest: Buffer;
  /** First characters of the key, kept so a user can recognise it in a list. */
  prefix: string;
  /** Last characters of the key, kept for the same reason. */
  last4: string;
}

export function generateApiKey(): GeneratedApiKey {
  const random = randomBase62(RANDOM_LENGTH);
  const key = API_KEY_PREFIX + random + encodeChecksum(crc32(random));
  return {
    key,
    digest: digestApiKey(key),
    prefix: key.slice(0, PREFIX_DISPLAY_LENGTH),
    last4: key.slice(-LAST_DISPLAY_LENGTH),
  };
}

/**
 * Shape, alphabet and checksum check, so a mistyped or made-up key is rejected before it costs a database
 * round trip. The length is checked first, so an oversized input is rejected without being scanned.
 */
export function isWellFormedApiKey(candidate: string): boolean {
  if (candidate.length !== API_KEY_LENGTH || !candidate.startsWith(API_KEY_PREFIX)) {
    return false;
  }
  for (let i = RANDOM_START; i < CHECKSUM_START; i++) {
    if (base62Value(candidate.charCodeAt(i)) < 0) {
      return false;
    }
  }
  // Decoding and comparing numbers avoids building the expected checksum string; the encoding is
  // one-to-one, so this is equivalent to comparing the strings.
  let checksum = 0;
  for (let i = CHECKSUM_START; i < API_KEY_LENGTH; i++) {
    const value = base62Value(candidate.charCodeAt(i));
    if (value < 0) {
      return false;
    }
    checksum = checksum * BASE62_ALPHABET.length + value;
  }
  return checksum === crc32(candidate.slice(RANDOM_START, CHECKSUM_START));
}

export function digestApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Routing only: a token with the prefix goes to the API-key strategy, which then checks it properly. */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

function encodeChecksum(value: number): string {
  let out = '';
  for (let rest = value; rest > 0; rest = Math.floor(rest / BASE62_ALPHABET.length)) {
    out = BASE62_ALPHABET[rest % BASE62_ALPHABET.length] + out;
  }
  return out.padStart(CHECKSUM_LENGTH, BASE62_ALPHABET[0]);
}

/** Value of a base62 character code, or -1 when it is not one. */
function base62Value(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 65 && code <= 90) return code - 55; // A-Z
  if (code >= 97 && code <= 122) return code - 61; // a-z
  return -1;
}
