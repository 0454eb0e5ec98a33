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

/**
 * Words people build secrets from (and keyboard rows), compared after undoing the usual digit-for-letter swaps. A
 * few dozen are enough: a guesser tries these first, and a random secret contains none of them by chance.
 */
const COMMON_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'letmein',
  'welcome',
  'admin',
  'administrator',
  'changeme',
  'default',
  'iloveyou',
  'monkey',
  'dragon',
  'master',
  'login',
  'token',
  'session',
  'signing',
  'private',
  'public',
  'tollgate',
  'jwt',
  'key',
  'api',
  'test',
  'sample',
  'dummy',
  'hello',
  'trustno1',
  'root',
  'user',
  'guest',
  'football',
  'baseball',
  'sunshine',
  'princess',
  'shadow',
  'superman',
  'batman',
  'starwars',
  'summer',
  'winter',
  'spring',
  'autumn',
  'company',
  'production',
  'staging',
  'development',
  'server',
  'service',
  'backend',
  'qwerty',
  'qwertyuiop',
  'qwertz',
  'azerty',
  'asdf',
  'asdfghjkl',
  'zxcv',
  'zxcvbnm',
  'abc',
  'xyz',
];
const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
};
const WORD_BITS = Math.log2(COMMON_WORDS.length);
/** Counters and alphabets run over chunks of up to this many characters (`0a0b0c…`, `00010002…`). */
const MAX_CHUNK = 8;
/** What a stretch must be to count as structure rather than chance. */
const MIN_RUN_CHUNKS = 3;
const MIN_REPEAT = 3;
/** A longer secret is judged by its beginning: the search grows with the cube of the length. */
const MAX_ANALYSED = 256;

/** The bits a guesser needs for one character chosen freely from the classes the secret uses. */
function characterBits(value: string): number {
  let size = 0;
  if (/[a-z]/.test(value)) size += 26;
  if (/[A-Z]/.test(value)) size += 26;
  if (/[0-9]/.test(value)) size += 10;
  if (/[^a-zA-Z0-9]/.test(value)) size += 33;
  return Math.log2(Math.max(size, 2));
}

/** A chunk as a number: a single character by its code, a longer one as hexadecimal (decimal counters included). */
function chunkValue(chunk: string): number | undefined {
  if (chunk.length === 1) return chunk.codePointAt(0);
  return /^[0-9a-f]+$/i.test(chunk) ? Number.parseInt(chunk, 16) : undefined;
}

/**
 * An estimate of how many bits a guesser who knows how people build secrets needs, in the way of zxcvbn: the cheapest
 * reading of the secret as a chain of free characters, common words, sequences (`0123…`, `abcd…`, a hex counter
 * `000102…`, a repeated character) and repeats of an earlier part. It catches what character variety alone misses:
 * `0123456789` four times, the alphabet, `Password1234567890!` twice.
 */
export function structuralEntropyBits(value: string): number {
  const chars = [...value].slice(0, MAX_ANALYSED);
  const n = chars.length;
  const free = characterBits(value);
  const folded = chars.map((char) => LEET[char] ?? char.toLowerCase());
  const text = (from: number, to: number, of: readonly string[] = chars) => of.slice(from, to).join('');
  const cost = new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY);
  cost[0] = 0;
  const reach = (from: number, to: number, bits: number): void => {
    cost[to] = Math.min(cost[to]!, cost[from]! + bits);
  };
  for (let i = 0; i < n; i++) {
    reach(i, i + 1, free);
    for (const word of COMMON_WORDS) {
      const end = i + word.length;
      if (end > n || text(i, end, folded) !== word) continue;
      reach(i, end, WORD_BITS + (text(i, end) === word ? 0 : 1));
    }
    for (let width = 1; width <= MAX_CHUNK && i + width * MIN_RUN_CHUNKS <= n; width++) {
      const chunk = (index: number) => chunkValue(text(i + index * width, i + (index + 1) * width));
      const first = chunk(0);
      const second = chunk(1);
      if (first === undefined || second === undefined) continue;
      const step = second - first;
      let chunks = 2;
      while (i + (chunks + 1) * width <= n && chunk(chunks) === first + chunks * step) chunks++;
      // The first chunk, the step (its size and sign) and how many chunks follow.
      const bits = free * width + Math.log2(Math.abs(step) + 1) + 1 + Math.log2(chunks);
      for (let count = MIN_RUN_CHUNKS; count <= chunks; count++) reach(i, i + count * width, bits);
    }
    // A repeat of an earlier stretch: where it starts and how long it is.
    let longest = 0;
    for (let source = 0; source < i; source++) {
      let length = 0;
      while (i + length < n && chars[source + length] === chars[i + length]) length++;
      longest = Math.max(longest, length);
    }
    for (let take = MIN_REPEAT; take <= longest; take++) reach(i, i + take, Math.log2(i) + Math.log2(take));
  }
  return cost[n]!;
}

/** Why a production secret is unacceptable, or undefined when it passes. */
export function weakSecretReason(secret: string): string | undefined {
  const trimmed = secret.trim();
  const lower = trimmed.toLowerCase();
  if (PUBLISHED.some((known) => lower.includes(known) || (lower.length >= 32 && known.includes(lower)))) {
    return 'is published (in this repository or its documentation), not a secret';
  }
  if (PLACEHOLDER_WORDS.test(trimmed)) return 'is a published placeholder, not a secret';
  const bits = Math.min(estimatedEntropyBits(trimmed), structuralEntropyBits(trimmed));
  if (bits < MIN_SECRET_ENTROPY_BITS) {
    return `looks guessable (about ${Math.floor(bits)} bits of entropy, at least ${MIN_SECRET_ENTROPY_BITS} needed)`;
  }
  return undefined;
}
