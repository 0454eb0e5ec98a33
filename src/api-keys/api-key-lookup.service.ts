import { Injectable } from '@nestjs/common';
import { InvalidatedCache } from '../database/invalidated-cache.js';
import { NotificationBus } from '../database/notification-bus.service.js';
import type { SqlExecutor } from '../database/database.service.js';
import { ApiKeysRepository, type ApiKeyCredential } from './api-keys.repository.js';

const TOPIC = 'api_key';

/**
 * Finds a presented key by its digest. Live keys are cached per digest and forgotten on every instance the moment
 * a revocation commits (LISTEN/NOTIFY), so a revoked key is refused on its very next request anywhere while an
 * ordinary request skips the database.
 */
@Injectable()
export class ApiKeyLookup {
  private readonly live: InvalidatedCache<ApiKeyCredential>;

  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly bus: NotificationBus,
  ) {
    this.live = new InvalidatedCache<ApiKeyCredential>(bus, {
      topic: TOPIC,
      maxEntries: 100_000,
      ttlMs: 300_000,
    });
  }

  find(digest: Buffer): Promise<ApiKeyCredential | undefined> {
    return this.live.getOrLoad(
      digest.toString('hex'),
      () => this.repository.findByDigest(digest),
      (key) => key.revokedAt === null,
    );
  }

  /**
   * Tells every instance, when `tx` commits, to forget the key. The returned promise resolves once this instance
   * has heard the notification back: await it after the commit, before answering.
   */
  async publishRevocation(tx: SqlExecutor, digest: Buffer): Promise<() => Promise<void>> {
    const payload = `${TOPIC}:${digest.toString('hex')}`;
    const delivered = this.bus.delivered(payload);
    await this.bus.publish(payload, tx);
    return () => delivered;
  }

  forget(digest: Buffer): void {
    this.live.invalidate(digest.toString('hex'));
  }
}
