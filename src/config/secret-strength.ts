/**
 * Every secret-like value of this repository (tests, benchmarks, examples in the API description) and placeholders
 * of documentation elsewhere: a deployment that copied one has a secret anyone can read. Compared
 * case-insensitively, after trimming, and refused also inside a longer value. `secret-strength.spec.ts` scans the
 * repository and fails on a value that is missing here and would pass the other checks.
 */
export const PUBLISHED_SECRETS = [
  'CHANGE-ME-placeholder-jwt-secret-not-for-real-use',
  'test-secret-that-is-at-least-32-bytes-long!',
  'another-secret-that-is-at-least-32-bytes!!',
  'a-test-secret-of-more-than-32-bytes-length',
  'another-secret-of-more-than-32-bytes-length',
  'a-test-secret-of-at-least-thirty-two-characters',
  'another-secret-of-at-least-thirty-two-chars',
  'bench-secret-that-is-at-least-32-bytes-long',
  // The examples of the API description: a webhook secret (Standard Webhooks' own) and an API key.
  'whsec_Q2xhcmsgS2VudCBpcyBTdXBlcm1hbiBhbmQgc2hlIGtub3dzIGl0IQ==',
  'tg_4Fq9ZkP2mX7vR1sT8bW3nY6cJ0dL5hGa2Kx9Qp',
  // The client's type tests' API key.
  'tg_0123456789abcdefghijklmnopqrstuvwxyzAB',
  'your-secret-key',
  'your-256-bit-secret',
  'secretsecretsecretsecretsecretsecret',
];
const PUBLISHED = PUBLISHED_SECRETS.map((known) => known.toLowerCase());
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
  const lower = trimmed.toLowerCase();
  if (PUBLISHED.some((known) => lower.includes(known) || (lower.length >= 32 && known.includes(lower)))) {
    return 'is published (in this repository or its documentation), not a secret';
  }
  if (PLACEHOLDER_WORDS.test(trimmed)) return 'is a published placeholder, not a secret';
  const bits = estimatedEntropyBits(trimmed);
  if (bits < MIN_SECRET_ENTROPY_BITS) {
    return `looks guessable (about ${Math.floor(bits)} bits of entropy, at least ${MIN_SECRET_ENTROPY_BITS} needed)`;
  }
  return undefined;
}
