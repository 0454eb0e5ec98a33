import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.service.js';
import { InvalidatedCache } from '../database/invalidated-cache.js';
import { NotificationBus } from '../database/notification-bus.service.js';
import { AuthRepository } from './auth.repository.js';

const TOPIC = 'jti';

/**
 * Whether a session token was logged out. The answer "not revoked" is cached per token id and forgotten on every
 * instance the moment a logout commits (LISTEN/NOTIFY), so a logged-out token is refused on its next request
 * anywhere, while an ordinary request costs no database round trip.
 */
@Injectable()
export class SessionRevocations {
  private readonly notRevoked: InvalidatedCache<true>;

  constructor(
    private readonly db: Database,
    private readonly repository: AuthRepository,
    private readonly bus: NotificationBus,
  ) {
    this.notRevoked = new InvalidatedCache<true>(bus, { topic: TOPIC, maxEntries: 100_000, ttlMs: 60_000 });
  }

  async isRevoked(jti: string): Promise<boolean> {
    const cached = await this.notRevoked.getOrLoad(jti, async () =>
      (await this.repository.isTokenRevoked(jti)) ? undefined : true,
    );
    return cached === undefined;
  }

  async revoke(jti: string, expiresAt: Date): Promise<void> {
    const payload = `${TOPIC}:${jti}`;
    const delivered = this.bus.delivered(payload);
    await this.db.transaction(async (tx) => {
      await this.repository.revokeToken(tx, jti, expiresAt);
      await this.bus.publish(payload, tx);
    });
    this.notRevoked.invalidate(jti);
    await delivered;
  }
}
