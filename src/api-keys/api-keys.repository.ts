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
>;

const COLUMNS = selectList(ApiKeyEntity, RECORD);
const CREDENTIAL_COLUMNS = selectList(ApiKeyEntity, CREDENTIAL);

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: Database) {}

  async insert(tx: SqlExecutor, key: NewApiKey): Promise<ApiKeyRecord> {
    const { rows } = await tx.query<ApiKeyRecord>(
      `INSERT INTO api_keys (owner_address, label, scopes, key_digest, prefix, last4)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [key.ownerAddress, key.label, key.scopes, key.keyDigest, key.prefix, key.last4],
    );
    return rows[0]!;
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
