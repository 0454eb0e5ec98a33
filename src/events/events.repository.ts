import { Injectable } from '@nestjs/common';
import { toPage, type Page, type PagePosition, type PageRequest } from '../common/pagination/cursor-page.js';
import { Database } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { join, raw, sql, type Sql } from '../database/sql.js';
import { keysetPage } from '../database/keyset-page.js';
import { EventEntity } from './event.entity.js';

const LISTED = ['id', 'type', 'createdAt', 'data'] as const satisfies readonly (keyof EventEntity)[];

/** An event as the listing shows it. */
export type ListedEvent = Pick<EventEntity, (typeof LISTED)[number]>;

const COLUMNS = raw(selectList(EventEntity, LISTED));

/** Which events to list; every field narrows it. */
export interface EventFilter {
  /** Lowercase; undefined: every address (operators), as `crossWallet` narrows it. */
  address: string | undefined;
  /** With `address` undefined: the events of `own` (lowercase), of any type, and of the others, of `types` only. */
  crossWallet?: { own: string; types: readonly string[] };
  types: readonly string[] | undefined;
  /** RFC 3339, inclusive; passed to PostgreSQL as text so that its microseconds count. */
  since: string | undefined;
  /** RFC 3339, exclusive. */
  until: string | undefined;
}

/** Owns the queries of the `events` table beyond the outbox's insert: the listing and the retention purge. */
@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  /**
   * One page of events, newest first, in the order (created_at, id) that ix_events_address_created_at_id (one
   * address) or ix_events_created_at_id (every address) read backwards.
   */
  async list(filter: EventFilter, page: PageRequest): Promise<Page<ListedEvent>> {
    const conditions: Sql[] = [];
    if (filter.address !== undefined) conditions.push(sql`address = ${filter.address}`);
    const { crossWallet } = filter;
    if (filter.address === undefined && crossWallet !== undefined) {
      conditions.push(sql`(address = ${crossWallet.own} OR type = ANY(${crossWallet.types}::varchar[]))`);
    }
    if (filter.types !== undefined) conditions.push(sql`type = ANY(${filter.types}::varchar[])`);
    if (filter.since !== undefined) conditions.push(sql`created_at >= ${filter.since}::timestamptz`);
    if (filter.until !== undefined) conditions.push(sql`created_at < ${filter.until}::timestamptz`);
    const keyset = keysetPage({ time: 'created_at', tiebreaker: 'id', tiebreakerType: 'uuid' }, page);
    conditions.push(keyset.after);
    const { rows } = await this.db.run<ListedEvent & { position: PagePosition }>(
      sql`SELECT ${COLUMNS}, ${keyset.position}
        FROM events WHERE ${join(conditions, ' AND ')}
        ORDER BY created_at DESC, id DESC ${keyset.limit}`,
    );
    return toPage(rows, page.limit);
  }

  /**
   * Deletes up to `limit` of the oldest events older than `retentionDays` (by the database's clock, which every
   * instance shares), and returns how many. An event whose
   * webhook delivery is still pending is kept until that delivery succeeds or fails: its deliveries (and their
   * attempts) go with it, by the foreign keys' cascade, and a pending one would be lost. Rows another purge holds are
   * skipped, so several instances purge side by side.
   */
  async purge(retentionDays: number, limit: number): Promise<number> {
    const { rowCount } = await this.db.run(
      sql`DELETE FROM events WHERE id IN (
          SELECT e.id FROM events e
          WHERE e.created_at < now() - make_interval(days => ${retentionDays}::int)
            AND NOT EXISTS (
              SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
          ORDER BY e.created_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)`,
    );
    return rowCount;
  }
}
