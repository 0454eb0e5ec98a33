/**
 * Values that appear in documentation, examples and compose files: a deployment that copied one has a secret the
 * whole internet knows. Compared case-insensitively, after trimming.
 */
const KNOWN_PLACEHOLDERS = [
  'CHANGE-ME-placeholder-jwt-secret-not-for-real-use',
  'test-secret-that-is-at-least-32-bytes-long!',
  'your-secret-key',
  'your-256-bit-secret',
  'secretsecretsecretsecretsecretsecret',
];
const PLACEHOLDER_WORDS = /change[-_ ]?me|placeholder|example|not[-_ ]for[-_ ]real|your[-_ ]secret/i;

/** A random 32-byte secret, however it is encoded, carries about 256 bits; 128 leaves room for passphrases. */
export const MIN_SECRET_ENTROPY_BITS = 128;

/**
 * An upper estimate of a string's entropy from its own character frequencies (Shannon entropy per character times
 * its length). It cannot recognise a guessable phrase, but it does catch repeated characters and short cycles such
 * as `aaaa…` or `abcabc…`, which the length check alone lets through.
 */
export function estimatedEntropyBits(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  const length = [...value].length;
  let perChar = 0;
  for (const count of counts.values()) {
    const p = count / length;
    perChar -= p * Math.log2(p);
  }
  return perChar * length;
}

/** Why a production secret is unacceptable, or undefined when it passes. */
export function weakSecretReason(secret: string): string | undefined {
  const trimmed = secret.trim();
  if (
    KNOWN_PLACEHOLDERS.some((known) => known.toLowerCase() === trimmed.toLowerCase()) ||
    PLACEHOLDER_WORDS.test(trimmed)
  ) {
    return 'is a published placeholder, not a secret';
  }
  const bits = estimatedEntropyBits(trimmed);
  if (bits < MIN_SECRET_ENTROPY_BITS) {
    return `looks guessable (about ${Math.floor(bits)} bits of entropy, at least ${MIN_SECRET_ENTROPY_BITS} needed)`;
  }
  return undefined;
}
