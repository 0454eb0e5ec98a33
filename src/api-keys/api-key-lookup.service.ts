import { Injectable } from '@nestjs/common';
import { CACHE_TOPICS } from '../cache/cache-topics.js';
import { InvalidatedCache } from '../cache/invalidated-cache.js';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import { ApiKeysRepository, type ApiKeyCredential } from './api-keys.repository.js';

/**
 * Finds a presented key by its digest. Live keys are cached per digest; a revocation invalidates the entry on every
 * instance (the api_keys trigger writes the invalidation in the revoking transaction), so a revoked key is refused
 * on its very next request anywhere while ordinary requests skip the lookup.
 */
@Injectable()
export class ApiKeyLookup {
  private readonly live: InvalidatedCache<ApiKeyCredential>;

  constructor(
    private readonly repository: ApiKeysRepository,
    log: InvalidationLog,
  ) {
    this.live = new InvalidatedCache<ApiKeyCredential>(log, {
      topic: CACHE_TOPICS.apiKey,
      maxEntries: 100_000,
      ttlMs: 300_000,
    });
  }

  /** `digest`: the key's SHA-256. */
  find(digest: Buffer): Promise<ApiKeyCredential | undefined> {
    return this.live.getOrLoad(digest.toString('hex'), () => this.repository.findByDigest(digest), {
      cacheable: (key) => key.revokedAt === null,
    });
  }
}
