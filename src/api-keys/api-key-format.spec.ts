import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import {
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  digestApiKey,
  generateApiKey,
  isWellFormedApiKey,
  looksLikeApiKey,
} from './api-key-format.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^tg_[0-9A-Za-z]{38}$/;

// An independent encoder (BigInt) so the tests do not just repeat the implementation's arithmetic.
function checksumOf(random: string): string {
  let value = BigInt(crc32(random));
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

function keyFrom(random: string): string {
  return API_KEY_PREFIX + random + checksumOf(random);
}

const sample = keyFrom('Zx9aQ0bR7cS6dT5eU4fV3gW2hX1iY8jK');

function substitute(key: string, index: number, char: string): string {
  return key.slice(0, index) + char + key.slice(index + 1);
}

describe('API key format', () => {
  it('generates keys of the documented form (tg_ and 38 characters), which the strategy recognises', () => {
    const { key } = generateApiKey();
    expect(key.slice(0, 3)).toBe('tg_');
    expect(key).toHaveLength(41);
    expect(looksLikeApiKey(key)).toBe(true);
    expect(looksLikeApiKey(`x${key}`)).toBe(false);
  });

  describe('generateApiKey', () => {
    it('produces a well-formed key of prefix, 32 random base62 characters and the CRC32 checksum', () => {
      const { key } = generateApiKey();
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(key).toMatch(KEY_PATTERN);
      expect(key.slice(35)).toBe(checksumOf(key.slice(3, 35)));
      expect(isWellFormedApiKey(key)).toBe(true);
    });

    it('returns the SHA-256 digest, the first 10 and the last 4 characters', () => {
      const { key, digest, prefix, last4 } = generateApiKey();
      expect(digest).toEqual(createHash('sha256').update(key).digest());
      expect(digest).toHaveLength(32);
      expect(prefix).toBe(key.slice(0, 10));
      expect(prefix.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(last4).toBe(key.slice(37));
      expect(last4).toHaveLength(4);
    });

    it('does not repeat keys', () => {
      const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));
      expect(keys.size).toBe(1000);
    });

    it('spreads random characters evenly over the alphabet', () => {
      const counts = new Map<string, number>(Array.from(ALPHABET, (char) => [char, 0]));
      const keyCount = 4000;
      for (let i = 0; i < keyCount; i++) {
        for (const char of generateApiKey().key.slice(3, 35)) {
          counts.set(char, (counts.get(char) ?? 0) + 1);
        }
      }
      const expected = (keyCount * 32) / ALPHABET.length;
      const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
      // 61 degrees of freedom: a fair source averages 61 and exceeds 150 with probability around 1e-10,
      // while `byte % 62` without rejection would average far above 500 at this sample size.
      expect(chiSquare).toBeLessThan(150);
      expect(counts.size).toBe(ALPHABET.length);
    });
  });

  describe('isWellFormedApiKey', () => {
    it('accepts a key with the right shape and checksum', () => {
      expect(isWellFormedApiKey(sample)).toBe(true);
      expect(isWellFormedApiKey(keyFrom('0'.repeat(32)))).toBe(true);
      expect(isWellFormedApiKey(keyFrom('z'.repeat(32)))).toBe(true);
    });

    it('detects every single-character substitution in a sample key', () => {
      for (let index = API_KEY_PREFIX.length; index < API_KEY_LENGTH; index++) {
        for (const char of ALPHABET) {
          if (char !== sample[index]) {
            expect(isWellFormedApiKey(substitute(sample, index, char))).toBe(false);
          }
        }
      }
    });

    it('detects any single-character substitution in any key', () => {
      fc.assert(
        fc.property(
          fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 32, maxLength: 32 }),
          fc.integer({ min: 0, max: API_KEY_LENGTH - 1 }),
          fc.oneof(fc.constantFrom(...ALPHABET), fc.string({ minLength: 1, maxLength: 1 })),
          (random, index, char) => {
            const key = keyFrom(random);
            fc.pre(key[index] !== char);
            expect(isWellFormedApiKey(key)).toBe(true);
            expect(isWellFormedApiKey(substitute(key, index, char))).toBe(false);
          },
        ),
        { numRuns: 2000 },
      );
    });

    it('rejects a key that is one character short or long', () => {
      expect(isWellFormedApiKey(sample.slice(0, 40))).toBe(false);
      expect(isWellFormedApiKey(sample.slice(1))).toBe(false);
      expect(isWellFormedApiKey(sample + 'a')).toBe(false);
      expect(isWellFormedApiKey('a' + sample)).toBe(false);
      expect(isWellFormedApiKey('')).toBe(false);
    });

    it('rejects a wrong prefix', () => {
      for (const prefix of ['TG_', 'tg-', 'tk_', 'sk_']) {
        expect(isWellFormedApiKey(prefix + sample.slice(3))).toBe(false);
      }
    });

    it('rejects characters outside base62 even when the length is right', () => {
      for (const char of ['-', '_', ' ', '+', '/', '=', '\0', '\n', 'é', '٣']) {
        expect(isWellFormedApiKey(substitute(sample, 10, char))).toBe(false);
        expect(isWellFormedApiKey(substitute(sample, 38, char))).toBe(false);
      }
      // An astral character is two UTF-16 units, so it keeps the length at 41 when replacing two characters.
      expect(isWellFormedApiKey(sample.slice(0, 10) + '😀' + sample.slice(12))).toBe(false);
    });

    it('rejects a checksum that decodes above the CRC32 range', () => {
      expect(isWellFormedApiKey(sample.slice(0, 35) + 'zzzzzz')).toBe(false);
    });

    it('rejects a 1 MB string', () => {
      expect(isWellFormedApiKey(sample + 'a'.repeat(1024 * 1024))).toBe(false);
      expect(isWellFormedApiKey('tg_' + 'A'.repeat(1024 * 1024))).toBe(false);
    });
  });

  describe('digestApiKey', () => {
    it('is SHA-256 of the key', () => {
      expect(digestApiKey('abc').toString('hex')).toBe(
        'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      );
      expect(digestApiKey(sample)).toEqual(createHash('sha256').update(sample).digest());
    });
  });

  describe('looksLikeApiKey', () => {
    it('routes tokens with the prefix to the API-key strategy', () => {
      expect(looksLikeApiKey(generateApiKey().key)).toBe(true);
      expect(looksLikeApiKey('tg_not-even-well-formed')).toBe(true);
    });

    it('leaves other tokens (such as JWTs) alone', () => {
      expect(looksLikeApiKey('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig')).toBe(false);
      expect(looksLikeApiKey('TG_abc')).toBe(false);
      expect(looksLikeApiKey('xtg_abc')).toBe(false);
      expect(looksLikeApiKey('')).toBe(false);
    });
  });
});
