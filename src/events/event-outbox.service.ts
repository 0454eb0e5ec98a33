import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import type { SqlExecutor } from '../database/database.service.js';
import { empty, join, raw, sql, type Sql } from '../database/sql.js';
import type { EventType } from './event-types.js';
import { EventsErrors } from './events.errors.js';

export interface NewEvent {
  type: EventType;
  /** The wallet the event is about (any case; stored lowercase). */
  address: string;
  /** The webhook payload's `data`. */
  data: Record<string, unknown>;
  /** When the change took effect, as the producer read it (a subscription change: its clock after the row lock). */
  occurredAt: Date;
}

export interface RecordedEvent extends NewEvent {
  id: string;
}

/**
 * Reacts to an event inside the transaction that recorded it (the webhooks module fans out deliveries): returns a
 * statement to run in the very statement that inserts the event, or nothing. It may read the inserted row from the
 * CTE `event`. Keep its text fixed (only values vary): the composed statement is prepared once per combination of
 * texts that occurs.
 */
export interface OutboxHandler {
  followUp(event: RecordedEvent): Sql | undefined;
}

/**
 * Marks a provider as an {@link OutboxHandler}: the outbox finds every one when the app starts, so a module that
 * reacts to events declares it here and registers nothing.
 */
export const ReactsToEvents = DiscoveryService.createDecorator<void>();

/**
 * Records domain events in the caller's transaction and lets other modules react in that same transaction, so
 * producers (subscriptions, API keys) need not know who consumes their events. The event and every reaction are one
 * statement, one round trip: data-modifying CTEs always run, and foreign keys to the event are checked at its end.
 */
@Injectable()
export class EventOutbox implements OnModuleInit {
  private handlers: OutboxHandler[] = [];
  /** Prepared statement names, by the composed text: one per combination of follow-ups that occurs. */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Admits a change a wallet asked for that will record events about it, in the change's transaction: refused (409
   * `event_limit_reached`) once EVENTS_MAX_PER_WALLET_PER_DAY events about the wallet were recorded over the last
   * 24 hours. The wallet's lock is held until the transaction ends, so concurrent changes count one another.
   * Revocations and the service's own events do not call it: they are bounded by what was admitted.
   */
  async admit(tx: SqlExecutor, address: string): Promise<void> {
    const owner = address.toLowerCase();
    const limit = this.config.eventsMaxPerWalletPerDay;
    await tx.run(sql`SELECT pg_advisory_xact_lock(hashtextextended('events:' || ${owner}, 0))`);
    // Counts at most `limit` rows of ix_events_address_created_at_id, whatever the wallet stored before.
    const { rows } = await tx.run<{ recorded: number }>(
      sql`SELECT count(*)::int AS recorded FROM (
            SELECT 1 FROM events WHERE address = ${owner} AND created_at > now() - interval '24 hours' LIMIT ${limit}
          ) AS recent`,
    );
    if (rows[0]!.recorded >= limit) throw EventsErrors.limitReached(limit);
  }

  onModuleInit(): void {
    this.handlers = this.discovery
      .getProviders({ metadataKey: ReactsToEvents.KEY })
      .map((wrapper) => wrapper.instance as OutboxHandler);
  }

  async record(tx: SqlExecutor, event: NewEvent): Promise<RecordedEvent> {
    // The id is chosen here rather than by the database: a follow-up (the webhook body) carries it.
    const recorded: RecordedEvent = { ...event, id: randomUUID() };
    const followUps: Sql[] = [];
    for (const handler of this.handlers) {
      const followUp = handler.followUp(recorded);
      if (followUp) followUps.push(followUp);
    }
    const ctes = followUps.map((followUp, index) => sql`, ${raw(`f${index + 1}`)} AS (${followUp})`);
    const statement = sql`WITH event AS (
        INSERT INTO events (id, type, address, data, created_at)
        VALUES (${recorded.id}, ${event.type}, ${event.address.toLowerCase()}, ${JSON.stringify(event.data)},
          ${event.occurredAt})
        RETURNING id, type, address, created_at
      )${ctes.length > 0 ? join(ctes, '') : empty} SELECT FROM event`;
    await tx.runPrepared(this.nameOf(statement.text), statement);
    return recorded;
  }

  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `events_record_${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }
}
