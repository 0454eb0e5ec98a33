import { randomBytes } from 'node:crypto';
import { estimatedEntropyBits, weakSecretReason } from './secret-strength.js';

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

  it('needs 128 bits: 16 symbols used evenly pass at 32 characters, 8 symbols fail at 40', () => {
    expect(weakSecretReason('0123456789abcdef'.repeat(2))).toBeUndefined();
    expect(weakSecretReason('0123456789abcdef'.repeat(2).slice(1))).toMatch(/bits of entropy/);
    expect(weakSecretReason('abcdefgh'.repeat(5))).toMatch(/about 120 bits of entropy, at least 128 needed/);
  });

  it('names the reason', () => {
    expect(weakSecretReason('  CHANGE-ME-placeholder-jwt-secret-not-for-real-use ')).toMatch(/placeholder/);
    expect(weakSecretReason('0123'.repeat(10))).toMatch(/bits of entropy/);
  });
});
