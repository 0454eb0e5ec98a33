import { Injectable } from '@nestjs/common';
import {
  pageParameters,
  pageSql,
  toPage,
  type Page,
  type PagePosition,
  type PageRequest,
} from '../common/pagination/cursor-page.js';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
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
] as const satisfies readonly (keyof ApiKeyEntity)[];

/** A key as its owner sees it: every column but the digest. */
export type ApiKeyRecord = Pick<ApiKeyEntity, (typeof RECORD)[number]>;

const CREDENTIAL = [
  'id',
  'ownerAddress',
  'scopes',
  'revokedAt',
] as const satisfies readonly (keyof ApiKeyEntity)[];

/** What verifying a presented key needs, and nothing more. */
export type ApiKeyCredential = Pick<ApiKeyEntity, (typeof CREDENTIAL)[number]>;

export type NewApiKey = Pick<
  ApiKeyEntity,
  'ownerAddress' | 'label' | 'scopes' | 'keyDigest' | 'prefix' | 'last4'
> & {
  /** The credential creating it: an API key's id, or a session token's id (`jti`). */
  createdBy: { keyId: string } | { session: string };
};

const COLUMNS = selectList(ApiKeyEntity, RECORD);
const CREDENTIAL_COLUMNS = selectList(ApiKeyEntity, CREDENTIAL);

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: Database) {}

  async insert(tx: SqlExecutor, key: NewApiKey): Promise<ApiKeyRecord> {
    const creatorKey = 'keyId' in key.createdBy ? key.createdBy.keyId : null;
    const creatorSession = 'session' in key.createdBy ? key.createdBy.session : null;
    const { rows } = await tx.query<ApiKeyRecord>(
      `INSERT INTO api_keys (owner_address, label, scopes, key_digest, prefix, last4, created_by_key_id,
         created_by_session)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        key.ownerAddress,
        key.label,
        key.scopes,
        key.keyDigest,
        key.prefix,
        key.last4,
        creatorKey,
        creatorSession,
      ],
    );
    return rows[0]!;
  }

  /**
   * Locks a creating key against revocation until the transaction ends, and says whether it is still live. A
   * revocation that began first has locked the row: this waits for it and then sees the key revoked; one that comes
   * later waits for this transaction, then finds the new key among the creator's (see revokeDescendants).
   */
  async lockLiveCreator(tx: SqlExecutor, keyId: string): Promise<boolean> {
    const { rowCount } = await tx.query(
      `SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NULL FOR SHARE`,
      [keyId],
    );
    return rowCount === 1;
  }

  /** Newest first, revoked ones included. */
  async listByOwner(ownerAddress: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.db.query<ApiKeyRecord>(
      `SELECT ${COLUMNS} FROM api_keys WHERE owner_address = $1 ORDER BY created_at DESC, id DESC`,
      [ownerAddress],
    );
    return rows;
  }

  /** One page of `listByOwner`. */
  async listPageByOwner(ownerAddress: string, page: PageRequest): Promise<Page<ApiKeyRecord>> {
    const sql = pageSql('created_at', 'id', 'uuid', 2);
    const { rows } = await this.db.query<ApiKeyRecord & { position: PagePosition }>(
      `SELECT ${COLUMNS}, ${sql.select} FROM api_keys WHERE owner_address = $1 AND ${sql.where}
       ORDER BY created_at DESC, id DESC ${sql.limit}`,
      [ownerAddress, ...pageParameters(page)],
    );
    return toPage(rows, page.limit);
  }

  /** One lookup through the unique digest index. */
  async findByDigest(digest: Buffer): Promise<ApiKeyCredential | undefined> {
    const { rows } = await this.db.query<ApiKeyCredential>(
      `SELECT ${CREDENTIAL_COLUMNS} FROM api_keys WHERE key_digest = $1`,
      [digest],
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
    const updated = await tx.query<ApiKeyRecord>(
      `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND owner_address = $2 AND revoked_at IS NULL
       RETURNING ${COLUMNS}`,
      [id, ownerAddress],
    );
    const record =
      updated.rows[0] ??
      (
        await tx.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND owner_address = $2`, [
          id,
          ownerAddress,
        ])
      ).rows[0];
    return record && { record, changed: updated.rowCount === 1 };
  }

  /**
   * Revokes every live key created, directly or through others, by the key `id`: the keys it made, the keys
   * those made, and so on. Repeated until a pass finds nothing: each statement sees only what had committed when it
   * began, and a key being created by one of these keys at that moment commits before the pass that locks its
   * creator ends (the creator is locked FOR SHARE while a key is made), so the next pass finds it. Once a pass finds
   * nothing, no live key of the tree is left to create another.
   */
  async revokeDescendants(tx: SqlExecutor, id: string): Promise<ApiKeyRecord[]> {
    const revoked: ApiKeyRecord[] = [];
    for (;;) {
      const { rows } = await tx.query<ApiKeyRecord>(
        `WITH RECURSIVE tree(id) AS (
           SELECT id FROM api_keys WHERE created_by_key_id = $1
           UNION
           SELECT k.id FROM api_keys k JOIN tree t ON k.created_by_key_id = t.id
         )
         UPDATE api_keys SET revoked_at = now()
         WHERE id IN (SELECT id FROM tree) AND revoked_at IS NULL
         RETURNING ${COLUMNS}`,
        [id],
      );
      if (rows.length === 0) return revoked;
      revoked.push(...rows);
    }
  }

  /** Writes last-use times in one statement, never moving a time backwards. */
  async recordLastUse(uses: ReadonlyMap<string, Date>): Promise<void> {
    if (uses.size === 0) return;
    await this.db.query(
      `UPDATE api_keys AS k SET last_used_at = u.used_at
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
       WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
      [[...uses.keys()], [...uses.values()]],
    );
  }
}
