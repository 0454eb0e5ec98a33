import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { SqlExecutor, SqlStatement } from '../database/database.service.js';
import type { EventType } from './event-types.js';

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
 * Reacts to an event inside the transaction that recorded it (the webhooks module fans out deliveries): returns
 * SQL to run in the very statement that inserts the event, or nothing. Its parameters are numbered from $1; it may
 * read the inserted row from the CTE `event`. Keep its text fixed: the composed statement is prepared once per
 * combination of texts that occurs.
 */
export interface OutboxHandler {
  followUp(event: RecordedEvent): SqlStatement | undefined;
}

const INSERT_EVENT = `INSERT INTO events (id, type, address, data, created_at)
  VALUES ($1, $2, $3, $4, $5)
  RETURNING id, type, address, created_at`;
const EVENT_PARAMETERS = 5;

/**
 * Records domain events in the caller's transaction and lets other modules react in that same transaction, so
 * producers (subscriptions, API keys) need not know who consumes their events. The event and every reaction are one
 * statement, one round trip: data-modifying CTEs always run, and foreign keys to the event are checked at its end.
 */
@Injectable()
export class EventOutbox {
  private readonly handlers: OutboxHandler[] = [];
  /** The statement's text and prepared name, by the follow-ups' texts: one entry per combination that occurs. */
  private readonly statements = new Map<string, { name: string; text: string }>();

  register(handler: OutboxHandler): void {
    this.handlers.push(handler);
  }

  async record(tx: SqlExecutor, event: NewEvent): Promise<RecordedEvent> {
    // The id is chosen here rather than by the database: a follow-up (the webhook body) carries it.
    const recorded: RecordedEvent = { ...event, id: randomUUID() };
    const followUps: SqlStatement[] = [];
    for (const handler of this.handlers) {
      const followUp = handler.followUp(recorded);
      if (followUp) followUps.push(followUp);
    }
    const { name, text } = this.statement(followUps);
    await tx.queryPrepared(name, text, [
      recorded.id,
      event.type,
      event.address.toLowerCase(),
      JSON.stringify(event.data),
      event.occurredAt,
      ...followUps.flatMap((followUp) => followUp.params),
    ]);
    return recorded;
  }

  private statement(followUps: readonly SqlStatement[]): { name: string; text: string } {
    const key = followUps.map((followUp) => followUp.text).join('\0');
    let statement = this.statements.get(key);
    if (statement === undefined) {
      let offset = EVENT_PARAMETERS;
      const ctes = followUps.map((followUp, index) => {
        const shifted = renumber(followUp.text, offset);
        offset += followUp.params.length;
        return `, f${index + 1} AS (${shifted})`;
      });
      statement = {
        name: `events_record_${this.statements.size}`,
        text: `WITH event AS (${INSERT_EVENT})${ctes.join('')} SELECT FROM event`,
      };
      this.statements.set(key, statement);
    }
    return statement;
  }
}

/** Shifts the parameter numbers of `text` by `offset` (`$1` becomes `$<offset + 1>`). */
function renumber(text: string, offset: number): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}
