import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';
import { InvalidatedCache } from '../database/invalidated-cache.js';
import { InvalidationLog, type InvalidationTicket } from '../database/invalidation-log.service.js';
import { ApiKeysRepository, type ApiKeyCredential } from './api-keys.repository.js';

/**
 * Finds a presented key by its digest. Live keys are cached per digest; a revocation invalidates the entry on every
 * instance through the invalidation log, so a revoked key is refused on its very next request anywhere while
 * ordinary requests skip the lookup.
 */
@Injectable()
export class ApiKeyLookup {
  private readonly live: InvalidatedCache<ApiKeyCredential>;

  constructor(
    private readonly repository: ApiKeysRepository,
    log: InvalidationLog,
  ) {
    this.live = new InvalidatedCache<ApiKeyCredential>(log, {
      topic: 'api_key',
      maxEntries: 100_000,
      ttlMs: 300_000,
    });
  }

  /** `digest`: the key's SHA-256, in hex. */
  find(digest: string, ticket?: InvalidationTicket): Promise<ApiKeyCredential | undefined> {
    return this.live.getOrLoad(digest, () => this.repository.findByDigest(Buffer.from(digest, 'hex')), {
      cacheable: (key) => key.revokedAt === null,
      ticket,
    });
  }

  /** Records in `tx` that the key is revoked for every instance once it commits. */
  publishRevocation(tx: SqlExecutor, digest: Buffer): Promise<void> {
    return this.live.publish(tx, digest.toString('hex'));
  }
}
