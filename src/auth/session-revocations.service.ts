import { Injectable } from '@nestjs/common';
import { CACHE_TOPICS } from '../cache/cache-topics.js';
import { storageAddress } from '../common/address/wallet-address.js';
import type { SqlExecutor } from '../database/database.service.js';
import { Database } from '../database/database.service.js';
import { InvalidatedCache } from '../cache/invalidated-cache.js';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import { AuthRepository } from './auth.repository.js';

/**
 * A wallet's "sign out everywhere" as a session token must meet it: the smallest `gen` claim a token may carry, and,
 * for tokens issued before tokens carried one, the smallest `iat` (seconds). Both 0 when there is no cutoff.
 */
export interface SessionsNotBefore {
  generation: number;
  /** Whole seconds: a cutoff at 12:00:00.400 refuses every token without `gen` dated 12:00:00 or earlier. */
  seconds: number;
}

const NO_CUTOFF: SessionsNotBefore = { generation: 0, seconds: 0 };

/**
 * Whether a session token was logged out, alone (logout) or with every session of its wallet (sign out
 * everywhere). "Not revoked" is cached per token id and each wallet's cutoff per address; the database triggers on
 * revoked_tokens and session_cutoffs write the invalidations in the changing transaction, so a logged-out token is
 * refused on its next request on every instance, and a request costs no query while both answers are cached.
 */
@Injectable()
export class SessionRevocations {
  private readonly notRevoked: InvalidatedCache<true>;
  private readonly cutoffs: InvalidatedCache<SessionsNotBefore>;

  constructor(
    private readonly db: Database,
    private readonly repository: AuthRepository,
    log: InvalidationLog,
  ) {
    this.notRevoked = new InvalidatedCache<true>(log, {
      topic: CACHE_TOPICS.revokedToken,
      maxEntries: 100_000,
      ttlMs: 60_000,
    });
    this.cutoffs = new InvalidatedCache<SessionsNotBefore>(log, {
      topic: CACHE_TOPICS.sessionCutoff,
      maxEntries: 100_000,
      ttlMs: 300_000,
    });
  }

  async isRevoked(jti: string): Promise<boolean> {
    const cached = await this.notRevoked.getOrLoad(jti, async () =>
      (await this.repository.isTokenRevoked(jti)) ? undefined : true,
    );
    return cached === undefined;
  }

  /** What a session token of the address must carry to be live (see {@link SessionsNotBefore}). */
  async sessionsNotBefore(address: string): Promise<SessionsNotBefore> {
    const key = storageAddress(address);
    const cutoff = await this.cutoffs.getOrLoad(key, async () => {
      const found = await this.repository.sessionCutoff(key);
      return found
        ? {
            generation: Number(found.generation),
            seconds: Math.floor(found.notBefore.getTime() / 1000) + 1,
          }
        : NO_CUTOFF;
    });
    return cutoff ?? NO_CUTOFF;
  }

  revoke(jti: string, expiresAt: Date): Promise<void> {
    return this.repository.revokeToken(this.db, jti, expiresAt);
  }

  /** Refuses every session token of the address issued until this transaction commits. */
  cutOff(tx: SqlExecutor, address: string, now: Date): Promise<void> {
    return this.repository.cutOffSessions(tx, storageAddress(address), now);
  }
}
