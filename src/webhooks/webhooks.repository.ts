import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

const RECORD = [
  'id',
  'ownerAddress',
  'url',
  'events',
  'enabled',
  'description',
  'secret',
  'createdAt',
  'updatedAt',
  'failingSince',
  'disabledReason',
] as const satisfies readonly (keyof WebhookEndpointEntity)[];

/**
 * A configuration as the service works with it (every column but the previous secret); the secrets never leave
 * the module except on create/rotate.
 */
export type WebhookEndpointRecord = Pick<WebhookEndpointEntity, (typeof RECORD)[number]>;

/** What an owner's change writes. */
export type WebhookEndpointFields = Pick<
  WebhookEndpointEntity,
  'url' | 'events' | 'enabled' | 'description' | 'failingSince' | 'disabledReason'
>;

const COLUMNS = selectList(WebhookEndpointEntity, RECORD);

/** How long a replaced secret keeps signing after a rotation. */
const ROTATION_OVERLAP = `interval '24 hours'`;

/** Owns the queries of webhook configurations. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly db: Database) {}

  /** Serialises configuration changes of one wallet, so the per-wallet limit holds under concurrent creates. */
  async lockOwner(tx: SqlExecutor, ownerAddress: string): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1, 0))`, [
      ownerAddress,
    ]);
  }

  /** The wallet's configurations, oldest first. */
  async listByOwner(ownerAddress: string): Promise<WebhookEndpointRecord[]> {
    const { rows } = await this.db.query<WebhookEndpointRecord>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = $1 ORDER BY created_at, id`,
      [ownerAddress],
    );
    return rows;
  }

  async findOwned(ownerAddress: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    const { rows } = await this.db.query<WebhookEndpointRecord>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = $1 AND id = $2`,
      [ownerAddress, id],
    );
    return rows[0];
  }

  /** The wallet's enabled configurations, oldest first. */
  async listEnabledByOwner(ownerAddress: string): Promise<WebhookEndpointRecord[]> {
    const { rows } = await this.db.query<WebhookEndpointRecord>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = $1 AND enabled ORDER BY created_at, id`,
      [ownerAddress],
    );
    return rows;
  }

  /**
   * Finds the owner's configuration by id or by URL and locks it: the delivery worker updates `failing_since` and
   * may disable a configuration concurrently, and a change built on a stale read would undo that.
   */
  async findForUpdate(
    tx: SqlExecutor,
    ownerAddress: string,
    by: { id: string } | { url: string },
  ): Promise<WebhookEndpointRecord | undefined> {
    const [column, value] = 'id' in by ? ['id', by.id] : ['url', by.url];
    const { rows } = await tx.query<WebhookEndpointRecord>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = $1 AND ${column} = $2 FOR UPDATE`,
      [ownerAddress, value],
    );
    return rows[0];
  }

  /**
   * Deletes the owner's configuration, its deliveries and their attempts (foreign keys cascade). False when it
   * does not exist or belongs to someone else, which callers must not be able to tell apart.
   */
  async deleteOwned(ownerAddress: string, id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `DELETE FROM webhook_endpoints WHERE owner_address = $1 AND id = $2`,
      [ownerAddress, id],
    );
    return rowCount === 1;
  }

  async countByOwner(tx: SqlExecutor, ownerAddress: string): Promise<number> {
    const { rows } = await tx.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM webhook_endpoints WHERE owner_address = $1`,
      [ownerAddress],
    );
    return rows[0]!.count;
  }

  async insert(
    tx: SqlExecutor,
    ownerAddress: string,
    fields: WebhookEndpointFields,
    secret: string,
  ): Promise<WebhookEndpointRecord> {
    const { rows } = await tx.query<WebhookEndpointRecord>(
      `INSERT INTO webhook_endpoints (owner_address, url, events, enabled, description, secret)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [ownerAddress, fields.url, fields.events, fields.enabled, fields.description, secret],
    );
    return rows[0]!;
  }

  /**
   * Writes every field; with `newSecret`, the current secret becomes the previous one (replacing any older one)
   * and keeps signing for 24 hours.
   */
  async update(
    tx: SqlExecutor,
    id: string,
    fields: WebhookEndpointFields,
    newSecret?: string,
  ): Promise<WebhookEndpointRecord> {
    const rotate = newSecret !== undefined;
    const { rows } = await tx.query<WebhookEndpointRecord>(
      `UPDATE webhook_endpoints SET
         url = $2, events = $3, enabled = $4, description = $5, failing_since = $6, disabled_reason = $7,
         previous_secret = CASE WHEN $8 THEN secret ELSE previous_secret END,
         previous_secret_expires_at = CASE WHEN $8 THEN now() + ${ROTATION_OVERLAP}
                                           ELSE previous_secret_expires_at END,
         secret = CASE WHEN $8 THEN $9 ELSE secret END,
         updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        fields.url,
        fields.events,
        fields.enabled,
        fields.description,
        fields.failingSince,
        fields.disabledReason,
        rotate,
        newSecret ?? null,
      ],
    );
    return rows[0]!;
  }
}
