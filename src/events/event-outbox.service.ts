import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { EventEntity } from './event.entity.js';
import type { EventType } from './event-types.js';

export interface NewEvent {
  type: EventType;
  /** The wallet the event is about (any case; stored lowercase). */
  address: string;
  /** The webhook payload's `data`. */
  data: Record<string, unknown>;
}

export interface RecordedEvent extends NewEvent {
  id: string;
  occurredAt: Date;
}

const RETURNED = selectList(EventEntity, ['id', 'createdAt']);

/** Reacts to an event inside the transaction that recorded it (the webhooks module fans out deliveries). */
export interface OutboxHandler {
  onEvent(tx: SqlExecutor, event: RecordedEvent): Promise<void>;
}

/**
 * Records domain events in the caller's transaction and lets other modules react in that same transaction, so
 * producers (subscriptions, API keys) need not know who consumes their events.
 */
@Injectable()
export class EventOutbox {
  private readonly handlers: OutboxHandler[] = [];

  register(handler: OutboxHandler): void {
    this.handlers.push(handler);
  }

  async record(tx: SqlExecutor, event: NewEvent): Promise<RecordedEvent> {
    const { rows } = await tx.query<Pick<EventEntity, 'id' | 'createdAt'>>(
      `INSERT INTO events (type, address, data) VALUES ($1, $2, $3) RETURNING ${RETURNED}`,
      [event.type, event.address.toLowerCase(), JSON.stringify(event.data)],
    );
    const recorded: RecordedEvent = { ...event, id: rows[0]!.id, occurredAt: rows[0]!.createdAt };
    for (const handler of this.handlers) await handler.onEvent(tx, recorded);
    return recorded;
  }
}
