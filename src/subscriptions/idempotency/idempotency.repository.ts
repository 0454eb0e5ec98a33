import { Injectable } from '@nestjs/common';
import { DatabaseSession, presenceLockKey } from '../../database/database-session.js';
import { Database, type SqlExecutor } from '../../database/database.service.js';
import { selectList } from '../../database/select-list.js';
import { raw, sql } from '../../database/sql.js';
import { IdempotencyKeyEntity } from './idempotency-key.entity.js';
import type { IdempotentRequest } from './idempotent-request.js';

const RECORD = [
  'fingerprint',
  'status',
  'responseStatus',
  'responseBody',
] as const satisfies readonly (keyof IdempotencyKeyEntity)[];

export type IdempotencyRecord = Pick<IdempotencyKeyEntity, (typeof RECORD)[number]>;

const COLUMNS = raw(selectList(IdempotencyKeyEntity, RECORD));

/** Owns the queries of `idempotency_keys`. */
@Injectable()
export class IdempotencyRepository {
  constructor(
    private readonly db: Database,
    private readonly session: DatabaseSession,
  ) {}

  /**
   * Claims the key for a new attempt in one atomic statement and returns the attempt's lease. A key that is free,
   * expired, or held by an attempt of the same request whose process is gone (its presence lock is free: the server
   * ended its session, and with it the attempt's transaction) or silent for `takeoverAfterSeconds` (its process
   * presumably died) is claimed; otherwise null, and the caller reads the record to answer.
   */
  async claim(
    request: IdempotentRequest,
    ttlSeconds: number,
    takeoverAfterSeconds: number,
  ): Promise<string | null> {
    const { principal, key, fingerprint } = request;
    const { rows } = await this.db.run<Pick<IdempotencyKeyEntity, 'lease'>>(
      sql`INSERT INTO idempotency_keys AS k
         (principal, idempotency_key, fingerprint, status, lease, owner_instance, started_at, expires_at)
       VALUES (${principal}, ${key}, ${fingerprint}, 'in_progress', gen_random_uuid(),
         ${this.session.presentAs}::uuid, now(), now() + make_interval(secs => ${ttlSeconds}))
       ON CONFLICT (principal, idempotency_key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, status = 'in_progress', lease = EXCLUDED.lease,
             owner_instance = EXCLUDED.owner_instance, started_at = EXCLUDED.started_at,
             expires_at = EXCLUDED.expires_at, completed_at = NULL, response_status = NULL, response_body = NULL
         WHERE k.expires_at <= now()
            OR (k.status = 'in_progress' AND k.fingerprint = EXCLUDED.fingerprint
                AND (k.started_at <= now() - make_interval(secs => ${takeoverAfterSeconds})
                  -- Taken for this statement only, and only when free: its holder's session has ended.
                  OR (k.owner_instance IS NOT NULL
                      AND pg_try_advisory_xact_lock(${presenceLockKey(sql`k.owner_instance`)}))))
       RETURNING lease`,
    );
    return rows[0]?.lease ?? null;
  }

  async find(request: IdempotentRequest): Promise<IdempotencyRecord | null> {
    const { rows } = await this.db.run<IdempotencyRecord>(
      sql`SELECT ${COLUMNS} FROM idempotency_keys
       WHERE principal = ${request.principal} AND idempotency_key = ${request.key}`,
    );
    return rows[0] ?? null;
  }

  /**
   * Stores the response to replay. Run in the change's own transaction, so the change and its completion commit
   * together. False when the attempt no longer holds the key (another one took it over).
   */
  async complete(
    executor: SqlExecutor,
    request: IdempotentRequest,
    lease: string,
    responseStatus: number,
    responseBody: unknown,
  ): Promise<boolean> {
    const { rowCount } = await executor.run(
      sql`UPDATE idempotency_keys
       SET status = 'completed', response_status = ${responseStatus},
           response_body = ${JSON.stringify(responseBody)}, completed_at = now()
       WHERE principal = ${request.principal} AND idempotency_key = ${request.key} AND lease = ${lease}
         AND status = 'in_progress'`,
    );
    return rowCount === 1;
  }

  /** Frees a key whose attempt failed without effect, so that the client may retry with it. */
  async release(request: IdempotentRequest, lease: string): Promise<void> {
    await this.db.run(
      sql`DELETE FROM idempotency_keys
       WHERE principal = ${request.principal} AND idempotency_key = ${request.key} AND lease = ${lease}
         AND status = 'in_progress'`,
    );
  }

  async purgeExpired(): Promise<number> {
    const { rowCount } = await this.db.run(sql`DELETE FROM idempotency_keys WHERE expires_at <= now()`);
    return rowCount;
  }
}
