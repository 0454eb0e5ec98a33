import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { empty, raw, sql } from '../database/sql.js';
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

const COLUMNS = raw(selectList(WebhookEndpointEntity, RECORD));

/** How long a replaced secret keeps signing after a rotation. */
const ROTATION_OVERLAP = sql`interval '24 hours'`;

/** Owns the queries of webhook configurations. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly db: Database) {}

  /** Serialises configuration changes of one wallet, so the per-wallet limit holds under concurrent creates. */
  async lockOwner(tx: SqlExecutor, ownerAddress: string): Promise<void> {
    await tx.run(
      sql`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || ${ownerAddress}, 0))`,
    );
  }

  /** The wallet's configurations, oldest first. */
  async listByOwner(ownerAddress: string): Promise<WebhookEndpointRecord[]> {
    const { rows } = await this.db.run<WebhookEndpointRecord>(
      sql`SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = ${ownerAddress} ORDER BY created_at, id`,
    );
    return rows;
  }

  async findOwned(ownerAddress: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    const { rows } = await this.db.run<WebhookEndpointRecord>(
      sql`SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = ${ownerAddress} AND id = ${id}`,
    );
    return rows[0];
  }

  /** The wallet's enabled configurations, oldest first. */
  async listEnabledByOwner(ownerAddress: string): Promise<WebhookEndpointRecord[]> {
    const { rows } = await this.db.run<WebhookEndpointRecord>(
      sql`SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = ${ownerAddress} AND enabled
       ORDER BY created_at, id`,
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
    const match = 'id' in by ? sql`id = ${by.id}` : sql`url = ${by.url}`;
    const { rows } = await tx.run<WebhookEndpointRecord>(
      sql`SELECT ${COLUMNS} FROM webhook_endpoints WHERE owner_address = ${ownerAddress} AND ${match} FOR UPDATE`,
    );
    return rows[0];
  }

  /**
   * Deletes the owner's configuration, its deliveries and their attempts (foreign keys cascade). False when it
   * does not exist or belongs to someone else, which callers must not be able to tell apart.
   */
  async deleteOwned(ownerAddress: string, id: string): Promise<boolean> {
    const { rowCount } = await this.db.run(
      sql`DELETE FROM webhook_endpoints WHERE owner_address = ${ownerAddress} AND id = ${id}`,
    );
    return rowCount === 1;
  }

  async countByOwner(tx: SqlExecutor, ownerAddress: string): Promise<number> {
    const { rows } = await tx.run<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM webhook_endpoints WHERE owner_address = ${ownerAddress}`,
    );
    return rows[0]!.count;
  }

  async insert(
    tx: SqlExecutor,
    ownerAddress: string,
    fields: WebhookEndpointFields,
    secret: string,
  ): Promise<WebhookEndpointRecord> {
    const { rows } = await tx.run<WebhookEndpointRecord>(
      sql`INSERT INTO webhook_endpoints (owner_address, url, events, enabled, description, secret)
       VALUES (${ownerAddress}, ${fields.url}, ${fields.events}, ${fields.enabled}, ${fields.description}, ${secret})
       RETURNING ${COLUMNS}`,
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
    const rotation =
      newSecret === undefined
        ? empty
        : sql`previous_secret = secret, previous_secret_expires_at = now() + ${ROTATION_OVERLAP},
           secret = ${newSecret},`;
    const { rows } = await tx.run<WebhookEndpointRecord>(
      sql`UPDATE webhook_endpoints SET
         url = ${fields.url}, events = ${fields.events}, enabled = ${fields.enabled},
         description = ${fields.description}, failing_since = ${fields.failingSince},
         disabled_reason = ${fields.disabledReason}, ${rotation} updated_at = now()
       WHERE id = ${id} RETURNING ${COLUMNS}`,
    );
    return rows[0]!;
  }
}
