import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { storageAddress, type Address } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import type { EventType } from '../events/event-types.js';
import type { Principal } from '../auth/principal.js';
import { heldScopes, type Scope } from '../auth/scopes.js';
import { SessionKeyRevocation } from '../auth/session-key-revocation.js';
import { generateApiKey } from './api-key-format.js';
import { ApiKeyUsageTracker, utcDay } from './api-key-usage.tracker.js';
import { ApiKeyErrors } from './api-keys.errors.js';
import { AuthErrors } from '../auth/auth.errors.js';
import { ApiKeysRepository, type ApiKeyRecord, type NewApiKey } from './api-keys.repository.js';

/** Days of usage a key's usage answer covers, today included. */
export const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface CreatedApiKey {
  record: ApiKeyRecord;
  /** The full key: handed to the caller once, never stored or logged. */
  key: string;
}

export interface RevokedApiKeys {
  record: ApiKeyRecord;
  /** Keys created by it (directly or not) that this revocation revoked. */
  descendants: ApiKeyRecord[];
}

export interface ApiKeyUsage {
  id: string;
  /** Newest first: today (UTC) and the 29 days before, each with its request count. */
  days: { day: string; requests: number }[];
}

/** Which credential is creating a key: the presenting API key, or the session token. */
function creatorOf(principal: Principal): NewApiKey['createdBy'] {
  if (principal.via === 'api_key' && principal.keyId) return { keyId: principal.keyId };
  if (principal.tokenId) return { session: principal.tokenId };
  throw new Error('a principal without a key id or token id');
}

function eventData(record: ApiKeyRecord): Record<string, unknown> {
  return {
    id: record.id,
    label: record.label,
    scopes: record.scopes,
    prefix: record.prefix,
    createdAt: record.createdAt.toISOString(),
    revokedAt: record.revokedAt?.toISOString() ?? null,
    expiresAt: record.expiresAt?.toISOString() ?? null,
  };
}

/** Creating, listing and revoking a wallet's API keys; each change emits its event in the same transaction. */
@Injectable()
export class ApiKeysService implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly repository: ApiKeysRepository,
    private readonly outbox: EventOutbox,
    private readonly usage: ApiKeyUsageTracker,
    private readonly sessionKeys: SessionKeyRevocation,
  ) {}

  onModuleInit(): void {
    this.sessionKeys.register((tx, address) => this.revokeSessionKeys(tx, address));
  }

  async create(
    principal: Principal,
    label: string,
    scopes: readonly Scope[],
    expiresAt: Date | undefined,
  ): Promise<CreatedApiKey> {
    const held = heldScopes(principal.scopes);
    const missing = scopes.filter((scope) => !held.has(scope));
    if (missing.length > 0) throw ApiKeyErrors.scopeNotHeld(missing);
    const now = Date.now();
    if (expiresAt) this.checkExpiry(expiresAt, now);
    const ownerAddress = storageAddress(principal.address);
    const createdBy = creatorOf(principal);
    const generated = generateApiKey();
    const record = await this.db.transaction(async (tx) => {
      let creatorExpiresAt: Date | null = null;
      if ('keyId' in createdBy) {
        // A key revoked while it creates another must not leave a live child behind (see revokeDescendants).
        const creator = await this.repository.lockLiveCreator(tx, createdBy.keyId);
        if (!creator) throw AuthErrors.apiKeyRevoked();
        if (creator.expiresAt && creator.expiresAt.getTime() <= now) throw AuthErrors.apiKeyExpired();
        creatorExpiresAt = creator.expiresAt;
      }
      const expiry = this.expiryOf(expiresAt, creatorExpiresAt, now);
      const limit = this.config.apiKeysMaxPerWallet;
      if ((await this.repository.lockOwnerAndCountLive(tx, ownerAddress)) >= limit) {
        throw ApiKeyErrors.limitReached(limit);
      }
      await this.outbox.admit(tx, ownerAddress);
      // A key that expires within the notice period gets its notice now: the sweep could come too late for it.
      const expiringNotified =
        expiry !== null && expiry.getTime() - now <= this.config.apiKeyExpiryNoticeHours * 3_600_000;
      const inserted = await this.repository.insert(tx, {
        ownerAddress,
        label,
        scopes: [...scopes],
        keyDigest: generated.digest,
        prefix: generated.prefix,
        last4: generated.last4,
        createdBy,
        expiresAt: expiry,
        expiringNotified,
      });
      await this.emit(tx, 'api_key.created', inserted, inserted.createdAt);
      if (expiringNotified) await this.emit(tx, 'api_key.expiring', inserted, inserted.createdAt);
      return inserted;
    });
    return { record, key: generated.key };
  }

  /** One page of the caller's keys, newest first; `lastUsedAt` includes this instance's use not written yet. */
  async listPage(principal: Principal, page: PageRequest): Promise<Page<ApiKeyRecord>> {
    const { stored, unflushed } = await this.usage.withUnflushed(() =>
      this.repository.listPageByOwner(storageAddress(principal.address), page),
    );
    return {
      ...stored,
      items: stored.items.map((record) => withLastUse(record, unflushed.lastUse.get(record.id))),
    };
  }

  /** Requests per UTC day over the last USAGE_DAYS days, stored and not yet written by this instance. */
  async usageOf(principal: Principal, id: string, now = Date.now()): Promise<ApiKeyUsage> {
    const days = Array.from({ length: USAGE_DAYS }, (_, index) => utcDay(now - index * DAY_MS));
    const { stored, unflushed } = await this.usage.withUnflushed(async () => {
      const key = await this.repository.findOwned(storageAddress(principal.address), id);
      return key && (await this.repository.usageSince(key.id, days.at(-1)!));
    });
    if (!stored) throw ApiKeyErrors.notFound();
    const counted = new Map(stored.map((row) => [row.day, row.requests]));
    const pending = unflushed.counts.get(id);
    return {
      id,
      days: days.map((day) => ({ day, requests: (counted.get(day) ?? 0) + (pending?.get(day) ?? 0) })),
    };
  }

  /**
   * Revokes the key and, in the same transaction, every key it created, directly or not: a key minted by a stolen
   * key dies with it. Idempotent: revoking a revoked key answers as the first time and emits nothing new for it
   * (keys of its tree still live, e.g. after a revocation by hand in SQL, are revoked then).
   */
  revoke(principal: Principal, id: string): Promise<RevokedApiKeys> {
    return this.db.transaction(async (tx) => {
      const revoked = await this.repository.revoke(tx, storageAddress(principal.address), id);
      if (!revoked) throw ApiKeyErrors.notFound();
      const descendants = await this.repository.revokeDescendants(tx, [id]);
      for (const record of [...(revoked.changed ? [revoked.record] : []), ...descendants]) {
        await this.emit(tx, 'api_key.revoked', record, record.revokedAt!);
      }
      return { record: revoked.record, descendants };
    });
  }

  /**
   * "Sign out everywhere" with `revokeKeys`, in its transaction: the live keys the wallet's sessions created and
   * every key those made, each with its `api_key.revoked` event. Returns how many were revoked.
   */
  async revokeSessionKeys(tx: SqlExecutor, address: Address): Promise<number> {
    const direct = await this.repository.revokeCreatedBySessions(tx, storageAddress(address));
    const descendants = await this.repository.revokeDescendants(
      tx,
      direct.map(({ id }) => id),
    );
    const revoked = [...direct, ...descendants];
    for (const record of revoked) await this.emit(tx, 'api_key.revoked', record, record.revokedAt!);
    return revoked.length;
  }

  /**
   * Records `api_key.expiring` for keys entering their notice period, then `api_key.expired` for keys whose
   * expiry passed, at most `limit` of each, each key's notice exactly once however many instances sweep (the claim
   * is an UPDATE in the event's transaction). Returns how many events were recorded.
   */
  async recordDueExpiryNotices(limit: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const expiring = await this.repository.claimExpiring(tx, this.config.apiKeyExpiryNoticeHours, limit);
      for (const record of expiring) await this.emit(tx, 'api_key.expiring', record, new Date());
      const expired = await this.repository.claimExpired(tx, limit);
      for (const record of expired) await this.emit(tx, 'api_key.expired', record, record.expiresAt!);
      return expiring.length + expired.length;
    });
  }

  private checkExpiry(expiresAt: Date, now: number): void {
    if (Number.isNaN(expiresAt.getTime())) throw ApiKeyErrors.invalidExpiry('expiresAt is not a valid time');
    if (expiresAt.getTime() <= now) throw ApiKeyErrors.invalidExpiry('expiresAt must be in the future');
    const maxDays = this.config.apiKeyMaxLifetimeDays;
    if (maxDays !== undefined && expiresAt.getTime() - now > maxDays * DAY_MS) {
      throw ApiKeyErrors.invalidExpiry(
        `expiresAt must be at most ${maxDays} days ahead (API_KEY_MAX_LIFETIME_DAYS)`,
        { maxLifetimeDays: maxDays },
      );
    }
  }

  /**
   * The new key's expiry: the one asked for (checked already), which may not be later than its creating key's; else
   * the earliest of the creating key's expiry and API_KEY_MAX_LIFETIME_DAYS from now; else none. A key never
   * outlives the key that created it, and never the lifetime the operator allows.
   */
  private expiryOf(requested: Date | undefined, creatorExpiresAt: Date | null, now: number): Date | null {
    if (requested) {
      if (creatorExpiresAt && requested.getTime() > creatorExpiresAt.getTime()) {
        throw ApiKeyErrors.invalidExpiry(
          'expiresAt must not be later than the expiry of the API key creating this one',
          { creatorExpiresAt: creatorExpiresAt.toISOString() },
        );
      }
      return requested;
    }
    const maxDays = this.config.apiKeyMaxLifetimeDays;
    const bounds = [
      ...(creatorExpiresAt ? [creatorExpiresAt.getTime()] : []),
      ...(maxDays !== undefined ? [now + maxDays * DAY_MS] : []),
    ];
    return bounds.length === 0 ? null : new Date(Math.min(...bounds));
  }

  private async emit(
    tx: SqlExecutor,
    type: EventType,
    record: ApiKeyRecord,
    occurredAt: Date,
  ): Promise<void> {
    await this.outbox.record(tx, {
      type,
      address: record.ownerAddress,
      data: eventData(record),
      occurredAt,
    });
  }
}

function withLastUse(record: ApiKeyRecord, unflushed: Date | undefined): ApiKeyRecord {
  return unflushed && (!record.lastUsedAt || record.lastUsedAt < unflushed)
    ? { ...record, lastUsedAt: unflushed }
    : record;
}
