import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.service.js';
import { InvalidatedCache } from '../cache/invalidated-cache.js';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import { AuthRepository } from './auth.repository.js';

/**
 * Whether a session token was logged out. "Not revoked" is cached per token id; a logout invalidates it on every
 * instance (the revoked_tokens trigger writes the invalidation in the logout's transaction), so a logged-out token
 * is refused on its next request anywhere.
 */
@Injectable()
export class SessionRevocations {
  private readonly notRevoked: InvalidatedCache<true>;

  constructor(
    private readonly db: Database,
    private readonly repository: AuthRepository,
    log: InvalidationLog,
  ) {
    this.notRevoked = new InvalidatedCache<true>(log, { topic: 'jti', maxEntries: 100_000, ttlMs: 60_000 });
  }

  async isRevoked(jti: string): Promise<boolean> {
    const cached = await this.notRevoked.getOrLoad(jti, async () =>
      (await this.repository.isTokenRevoked(jti)) ? undefined : true,
    );
    return cached === undefined;
  }

  revoke(jti: string, expiresAt: Date): Promise<void> {
    return this.repository.revokeToken(this.db, jti, expiresAt);
  }
}
