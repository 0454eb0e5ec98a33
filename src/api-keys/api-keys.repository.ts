import { Injectable } from '@nestjs/common';
import { toPage, type Page, type PagePosition, type PageRequest } from '../common/pagination/cursor-page.js';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { raw, sql, type Sql } from '../database/sql.js';
import { keysetPage } from '../database/keyset-page.js';
import type { ApiKeyUsageDailyEntity } from './api-key-usage-daily.entity.js';
import { ApiKeyEntity } from './api-key.entity.js';

const RECORD = [
  'id',
  'ownerAddress',
  'label',
  'scopes',
  'prefix',
  'last4',
  'createdAt',
  'lastUsedAt',
  'revokedAt',
  'createdByKeyId',
  'createdBySession',
  'expiresAt',
] as const satisfies readonly (keyof ApiKeyEntity)[];

/** A key as its owner sees it: every column but the digest and the sweep's bookkeeping. */
export type ApiKeyRecord = Pick<ApiKeyEntity, (typeof RECORD)[number]>;

const CREDENTIAL = [
  'id',
  'ownerAddress',
  'scopes',
  'revokedAt',
  'expiresAt',
] as const satisfies readonly (keyof ApiKeyEntity)[];

/** What verifying a presented key needs, and nothing more. */
export type ApiKeyCredential = Pick<ApiKeyEntity, (typeof CREDENTIAL)[number]>;

export type NewApiKey = Pick<
  ApiKeyEntity,
  'ownerAddress' | 'label' | 'scopes' | 'keyDigest' | 'prefix' | 'last4' | 'expiresAt'
> & {
  /** The credential creating it: an API key's id, or a session token's id (`jti`). */
  createdBy: { keyId: string } | { session: string };
  /** Its `api_key.expiring` event is recorded with its creation (it expires within the notice period). */
  expiringNotified: boolean;
};

/** Requests per UTC day (`YYYY-MM-DD`), as counted in memory or stored. */
export type DailyCounts = Map<string, number>;

export type StoredUsage = Pick<ApiKeyUsageDailyEntity, 'day'> & { requests: number };

const COLUMNS = raw(selectList(ApiKeyEntity, RECORD));
const CREDENTIAL_COLUMNS = raw(selectList(ApiKeyEntity, CREDENTIAL));

/**
 * Live keys with an expiry whose `api_key.expired` was not recorded: the predicate of ix_api_keys_expiry_pending,
 * written as the index is so that the planner can use it.
 */
const EXPIRY_PENDING = sql`expires_at IS NOT NULL AND expired_notified_at IS NULL AND revoked_at IS NULL`;

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: Database) {}

  async insert(tx: SqlExecutor, key: NewApiKey): Promise<ApiKeyRecord> {
    const creatorKey = 'keyId' in key.createdBy ? key.createdBy.keyId : null;
    const creatorSession = 'session' in key.createdBy ? key.createdBy.session : null;
    const { rows } = await tx.run<ApiKeyRecord>(
      sql`INSERT INTO api_keys (owner_address, label, scopes, key_digest, prefix, last4, created_by_key_id,
            created_by_session, expires_at, expiring_notified_at)
          VALUES (${key.ownerAddress}, ${key.label}, ${key.scopes}, ${key.keyDigest}, ${key.prefix}, ${key.last4},
            ${creatorKey}, ${creatorSession}, ${key.expiresAt},
            CASE WHEN ${key.expiringNotified}::boolean THEN now() END)
          RETURNING ${COLUMNS}`,
    );
    return rows[0]!;
  }

  /**
   * Locks a creating key against revocation until the transaction ends, and says whether it is still live. A
   * revocation that began first has locked the row: this waits for it and then sees the key revoked; one that comes
   * later waits for this transaction, then finds the new key among the creator's (see revokeDescendants).
   */
  async lockLiveCreator(
    tx: SqlExecutor,
    keyId: string,
  ): Promise<Pick<ApiKeyRecord, 'expiresAt'> | undefined> {
    const { rows } = await tx.run<Pick<ApiKeyRecord, 'expiresAt'>>(
      sql`SELECT expires_at AS "expiresAt" FROM api_keys WHERE id = ${keyId} AND revoked_at IS NULL FOR SHARE`,
    );
    return rows[0];
  }

  /**
   * Counts the owner's live keys (neither revoked nor expired) after taking the owner's key lock, held until the
   * transaction ends: concurrent creations for one wallet count one after the other, so the limit holds.
   */
  async lockOwnerAndCountLive(tx: SqlExecutor, ownerAddress: string): Promise<number> {
    await tx.run(sql`SELECT pg_advisory_xact_lock(hashtextextended('api_keys:' || ${ownerAddress}, 0))`);
    const { rows } = await tx.run<{ live: number }>(
      sql`SELECT count(*)::int AS live FROM api_keys
          WHERE owner_address = ${ownerAddress} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    );
    return rows[0]!.live;
  }

  /** One page of the owner's keys, newest first, revoked ones included. */
  async listPageByOwner(ownerAddress: string, page: PageRequest): Promise<Page<ApiKeyRecord>> {
    const keyset = keysetPage({ time: 'created_at', tiebreaker: 'id', tiebreakerType: 'uuid' }, page);
    const { rows } = await this.db.run<ApiKeyRecord & { position: PagePosition }>(
      sql`SELECT ${COLUMNS}, ${keyset.position}
          FROM api_keys WHERE owner_address = ${ownerAddress} AND ${keyset.after}
          ORDER BY created_at DESC, id DESC ${keyset.limit}`,
    );
    return toPage(rows, page.limit);
  }

  /** The owner's key, or undefined when it does not exist or belongs to someone else. */
  async findOwned(ownerAddress: string, id: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.db.run<ApiKeyRecord>(
      sql`SELECT ${COLUMNS} FROM api_keys WHERE id = ${id} AND owner_address = ${ownerAddress}`,
    );
    return rows[0];
  }

  /** One lookup through the unique digest index. */
  async findByDigest(digest: Buffer): Promise<ApiKeyCredential | undefined> {
    const { rows } = await this.db.runPrepared<ApiKeyCredential>(
      'tollgate_api_key_by_digest',
      sql`SELECT ${CREDENTIAL_COLUMNS} FROM api_keys WHERE key_digest = ${digest}`,
    );
    return rows[0];
  }

  /**
   * Revokes the owner's key; revoking twice keeps the first revocation time. `undefined` when the key does not
   * exist or belongs to someone else, which callers must not be able to tell apart.
   */
  async revoke(
    tx: SqlExecutor,
    ownerAddress: string,
    id: string,
  ): Promise<{ record: ApiKeyRecord; changed: boolean } | undefined> {
    const owned = sql`id = ${id} AND owner_address = ${ownerAddress}`;
    const [revoked] = await this.revokeWhere(tx, owned);
    const record =
      revoked ?? (await tx.run<ApiKeyRecord>(sql`SELECT ${COLUMNS} FROM api_keys WHERE ${owned}`)).rows[0];
    return record && { record, changed: revoked !== undefined };
  }

  /** Revokes every live key of the owner that a wallet session created (not those created by keys). */
  revokeCreatedBySessions(tx: SqlExecutor, ownerAddress: string): Promise<ApiKeyRecord[]> {
    return this.revokeWhere(tx, sql`owner_address = ${ownerAddress} AND created_by_session IS NOT NULL`);
  }

  /**
   * Revokes every live key created, directly or through others, by the keys `ids`: the keys they made, the keys
   * those made, and so on, all trees in one statement per pass. Call it after revoking `ids` in `tx`: a key one of
   * them was creating meanwhile has committed by then, so the first pass sees it. Repeated until a pass finds
   * nothing: each statement sees only what had committed when it began, and a key being created by one of these keys
   * at that moment commits before the pass that locks its creator ends (the creator is locked FOR SHARE while a key
   * is made), so the next pass finds it. Once a pass finds nothing, no live key of the trees is left to create
   * another.
   */
  async revokeDescendants(tx: SqlExecutor, ids: readonly string[]): Promise<ApiKeyRecord[]> {
    const revoked: ApiKeyRecord[] = [];
    for (;;) {
      const rows = await this.revokeWhere(
        tx,
        sql`id IN (
              WITH RECURSIVE tree(id) AS (
                SELECT id FROM api_keys WHERE created_by_key_id = ANY(${ids}::uuid[])
                UNION
                SELECT k.id FROM api_keys k JOIN tree t ON k.created_by_key_id = t.id
              )
              SELECT id FROM tree
            )`,
      );
      if (rows.length === 0) return revoked;
      revoked.push(...rows);
    }
  }

  /**
   * Claims up to `limit` live keys whose expiry is within `noticeHours` but still ahead and whose
   * `api_key.expiring` was not recorded: the claim is the UPDATE, so of several sweeping instances exactly one
   * records each key's notice (in `tx`, with the event). Locked rows are skipped, not waited for.
   */
  async claimExpiring(tx: SqlExecutor, noticeHours: number, limit: number): Promise<ApiKeyRecord[]> {
    const { rows } = await tx.run<ApiKeyRecord>(
      sql`UPDATE api_keys SET expiring_notified_at = now()
          WHERE id IN (
            SELECT id FROM api_keys
            WHERE ${EXPIRY_PENDING} AND expiring_notified_at IS NULL
              AND expires_at > now() AND expires_at <= now() + make_interval(hours => ${noticeHours})
            ORDER BY expires_at LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING ${COLUMNS}`,
    );
    return rows;
  }

  /** As `claimExpiring`, for live keys whose expiry has passed and whose `api_key.expired` was not recorded. */
  async claimExpired(tx: SqlExecutor, limit: number): Promise<ApiKeyRecord[]> {
    const { rows } = await tx.run<ApiKeyRecord>(
      sql`UPDATE api_keys SET expired_notified_at = now()
          WHERE id IN (
            SELECT id FROM api_keys
            WHERE ${EXPIRY_PENDING} AND expires_at <= now()
            ORDER BY expires_at LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING ${COLUMNS}`,
    );
    return rows;
  }

  /**
   * Adds counted requests to the daily totals and moves last-use times forward, in one statement. Keys that no
   * longer exist (deleted by hand) are skipped rather than failing the batch.
   */
  async recordUsage(
    counts: ReadonlyMap<string, DailyCounts>,
    lastUse: ReadonlyMap<string, Date>,
  ): Promise<void> {
    const ids: string[] = [];
    const days: string[] = [];
    const requests: number[] = [];
    for (const [id, perDay] of counts) {
      for (const [day, count] of perDay) {
        ids.push(id);
        days.push(day);
        requests.push(count);
      }
    }
    await this.db.run(
      sql`WITH counted AS (
            INSERT INTO api_key_usage_daily (key_id, day, count)
            SELECT u.id, u.day, u.count
            FROM unnest(${ids}::uuid[], ${days}::date[], ${requests}::bigint[]) AS u(id, day, count)
            WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = u.id)
            ON CONFLICT (key_id, day) DO UPDATE SET count = api_key_usage_daily.count + EXCLUDED.count
          )
          UPDATE api_keys AS k SET last_used_at = u.used_at
          FROM unnest(${[...lastUse.keys()]}::uuid[], ${[...lastUse.values()]}::timestamptz[]) AS u(id, used_at)
          WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
    );
  }

  /** The stored daily counts of a key from `since` (a UTC day) on. */
  async usageSince(keyId: string, since: string): Promise<StoredUsage[]> {
    const { rows } = await this.db.run<StoredUsage>(
      sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, count::float8 AS requests FROM api_key_usage_daily
          WHERE key_id = ${keyId} AND day >= ${since}::date`,
    );
    return rows;
  }

  /** Forgets daily counts older than `keepDays` days: no listing shows them. */
  async purgeUsage(keepDays: number): Promise<number> {
    const { rowCount } = await this.db.run(
      sql`DELETE FROM api_key_usage_daily WHERE day < (now() AT TIME ZONE 'UTC')::date - ${keepDays}::int`,
    );
    return rowCount;
  }

  /** Revokes the live keys that match `condition`; a key revoked before keeps its revocation time. */
  private async revokeWhere(tx: SqlExecutor, condition: Sql): Promise<ApiKeyRecord[]> {
    const { rows } = await tx.run<ApiKeyRecord>(
      sql`UPDATE api_keys SET revoked_at = now() WHERE (${condition}) AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    );
    return rows;
  }
}
