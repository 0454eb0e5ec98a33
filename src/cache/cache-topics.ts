/**
 * The invalidation topics: the database triggers write them (migrations CacheInvalidationTriggers,
 * CredentialCreatorsAndCutoffs, PlanCacheInvalidations and MandateCacheInvalidations call `invalidate_cache(topic, key)`), and each cache
 * listens under one. Migrations are history and keep their literal text; test/cache-coherence.e2e-spec.ts reads the
 * trigger functions from the database and fails unless they write exactly these topics.
 */
export const CACHE_TOPICS = {
  /** A logged-out session token; key: its `jti`. */
  revokedToken: 'jti',
  /** A wallet's "sign out everywhere"; key: the lowercase address. */
  sessionCutoff: 'session_cutoff',
  /** A key's revocation, scopes, owner or digest; key: the hex SHA-256 digest. */
  apiKey: 'api_key',
  /** Any change of a subscription row; key: the lowercase address. */
  subscription: 'subscription',
  /** Any change of a stored plan (name, features, archive, terms); key: the plan id. */
  plan: 'plan',
  /** A change of what a subscription object shows of a wallet's automatic renewal; key: the lowercase address. */
  mandate: 'auto_renew',
} as const;

export type CacheTopic = (typeof CACHE_TOPICS)[keyof typeof CACHE_TOPICS];

/**
 * The tables whose triggers write invalidations. With `CACHE_COHERENCE=acknowledged` a statement that writes one
 * outside a transaction is given one (Database.watchInvalidatingCommits), so its writer waits like any other;
 * test/cache-coherence.e2e-spec.ts reads the triggers from the database and fails unless this lists exactly them.
 */
export const CACHED_TABLES = [
  'revoked_tokens',
  'session_cutoffs',
  'api_keys',
  'subscriptions',
  'plans',
  'auto_renew_mandates',
] as const;
