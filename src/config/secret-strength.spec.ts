import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  estimatedEntropyBits,
  PUBLISHED_SECRETS,
  structuralEntropyBits,
  weakSecretReason,
} from './secret-strength.js';

/** A secret's characters: base64 and base64url, hex, and the punctuation of typed passphrases (no code: `$`, `{`). */
const C = String.raw`[A-Za-z0-9+/=_.!@#%^&*~-]`;

/**
 * Where a secret shows in source, configuration and documentation: a value given to a secret-named key (quoted, or
 * as in .env and compose files), a quoted string that calls itself a secret, and the shapes of this service's own
 * credentials (webhook secrets, API keys).
 */
const SECRET_SHAPES = [
  new RegExp(
    String.raw`(?:secret|password|passphrase)[\w-]*["'\x60]?\s*[:=]\s*["'\x60](${C}{32,})["'\x60]`,
    'gi',
  ),
  new RegExp(String.raw`^[\s#]*[A-Z_]*(?:SECRET|PASSWORD)[A-Z_]*\s*[:=]\s*(${C}{32,})`, 'gm'),
  new RegExp(String.raw`["'](${C}*secret${C}*)["']`, 'gi'),
  /\b(whsec_[A-Za-z0-9+/=]{20,})/g,
  /\b(tg_[A-Za-z0-9]{30,})/g,
];
/** Names, not values: SQL constraints and identifiers such as `ck_webhook_endpoints_previous_secret`. */
const IDENTIFIER = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;
/** Not text a person would copy: the lock file's hashes and compiled contract bytecode. */
const NOT_SCANNED = /(^|\/)package-lock\.json$|^test\/fixtures\/contracts\/compiled\.json$/;

/** Every secret-like value of 32 bytes or more in the repository's tracked files, with the first file naming it. */
function secretsInRepository(): Map<string, string> {
  const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);
  const found = new Map<string, string>();
  for (const file of files) {
    if (NOT_SCANNED.test(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // listed but not checked out (a deleted file in the working tree)
    }
    if (text.includes('\0')) continue;
    for (const shape of SECRET_SHAPES) {
      for (const [, value] of text.matchAll(shape)) {
        if (Buffer.byteLength(value!) >= 32 && !IDENTIFIER.test(value!) && !found.has(value!)) {
          found.set(value!, file);
        }
      }
    }
  }
  return found;
}

describe('weakSecretReason', () => {
  it('accepts random secrets in the usual encodings', () => {
    for (let i = 0; i < 50; i++) {
      expect(weakSecretReason(randomBytes(48).toString('base64'))).toBeUndefined();
      expect(weakSecretReason(randomBytes(32).toString('hex'))).toBeUndefined();
    }
  });

  it('estimates zero bits for one repeated character and about 8 bits a character for 256 distinct ones', () => {
    expect(estimatedEntropyBits('z'.repeat(100))).toBe(0);
    expect(estimatedEntropyBits('ab'.repeat(50))).toBeCloseTo(100);
  });

  it('needs 128 bits: 16 symbols used evenly, in no order, pass at 32 characters, and fail one shorter', () => {
    const shuffled = 'f3a91c7e05b2d8642e8b0d4f6a1c9735';
    expect(weakSecretReason(shuffled)).toBeUndefined();
    expect(weakSecretReason(shuffled.slice(1))).toMatch(/about 12\d bits of entropy, at least 128 needed/);
  });

  it.each([
    ['0123456789 four times', '0123456789'.repeat(4)],
    ['the alphabet', 'abcdefghijklmnopqrstuvwxyz'],
    ['the alphabets and the digits', 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'],
    [
      'a hex counter of bytes',
      Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0')).join(''),
    ],
    [
      'a hex counter of words',
      Array.from({ length: 10 }, (_, i) => (i * 7).toString(16).padStart(4, '0')).join(''),
    ],
    ['a decimal countdown', Array.from({ length: 16 }, (_, i) => String(99 - i)).join('')],
    ['a word and a sequence, twice', 'Password1234567890!Password1234567890!'],
    ['a word in digits for letters', 'P@ssw0rd!P@ssw0rd!P@ssw0rd!P@ssw0rd!'],
    ['sequences of 16 symbols, twice', '0123456789abcdef'.repeat(2)],
    ['a short cycle', 'abcdefgh'.repeat(5)],
    ['keyboard rows', 'qwertyuiopasdfghjklzxcvbnm1234567890'],
    ['common words', 'TollgateProductionJwtSigningSecretKey2026'],
  ])('refuses %s, whatever its character variety', (_what, secret) => {
    expect(secret.length).toBeGreaterThanOrEqual(26);
    expect(weakSecretReason(secret)).toMatch(
      /^looks guessable \(about \d+ bits of entropy, at least 128 needed\)$/,
    );
  });

  it('reads structure where character variety is high: few bits for sequences, repeats and words', () => {
    expect(estimatedEntropyBits('0123456789'.repeat(4))).toBeGreaterThan(128);
    expect(structuralEntropyBits('0123456789'.repeat(4))).toBeLessThan(32);
    expect(structuralEntropyBits('Password1234567890!Password1234567890!')).toBeLessThan(64);
    expect(structuralEntropyBits('a'.repeat(1000))).toBeLessThan(32);
  });

  it('accepts real random secrets: openssl rand -base64 48, -hex 32, and a passphrase of uncommon words', () => {
    for (let i = 0; i < 200; i++) {
      const base64 = randomBytes(48).toString('base64');
      expect({ base64, reason: weakSecretReason(base64) }).toEqual({ base64, reason: undefined });
      const hex = randomBytes(32).toString('hex');
      expect({ hex, reason: weakSecretReason(hex) }).toEqual({ hex, reason: undefined });
    }
    expect(weakSecretReason('correct horse battery staple under a violet umbrella')).toBeUndefined();
  });

  it('refuses every secret-like value of the repository (add a new one to PUBLISHED_SECRETS)', () => {
    const found = secretsInRepository();
    // The scan sees the values it must: the benchmark's, the test app's, the API description's examples.
    expect([...found.keys()]).toEqual(
      expect.arrayContaining([
        'bench-secret-that-is-at-least-32-bytes-long',
        'test-secret-that-is-at-least-32-bytes-long!',
        'tg_4Fq9ZkP2mX7vR1sT8bW3nY6cJ0dL5hGa2Kx9Qp',
      ]),
    );
    const accepted = [...found].filter(([value]) => weakSecretReason(value) === undefined);
    expect(accepted.map(([value, file]) => `${value} (${file})`)).toEqual([]);
  });

  it('refuses a published secret in any case, trimmed, or inside a longer value', () => {
    for (const known of PUBLISHED_SECRETS) {
      expect(weakSecretReason(` ${known.toUpperCase()}\n`)).toMatch(/published/);
      expect(weakSecretReason(`${known}${randomBytes(4).toString('hex')}`)).toMatch(/published/);
    }
  });

  it('names the reason', () => {
    expect(weakSecretReason('  CHANGE-ME-placeholder-jwt-secret-not-for-real-use ')).toMatch(/published/);
    expect(weakSecretReason('0123'.repeat(10))).toMatch(/bits of entropy/);
  });
});
