import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The outbox: every domain event, written in the same transaction as the change that caused it. Webhook deliveries
 * are derived from it in that same transaction, so a committed change always has its event and a rolled-back one
 * never does. It is also what `GET /events` lists, until the retention purge deletes it.
 */
@Entity({ name: 'events' })
// A wallet's listing: its events, newest first, in the page order (created_at, id).
@Index('ix_events_address_created_at_id', ['address', 'createdAt', 'id'])
// An operator's listing of every address, and the retention purge's oldest-first scan.
@Index('ix_events_created_at_id', ['createdAt', 'id'])
export class EventEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  /** Lowercase address of the wallet the event is about. */
  @Column({ type: 'varchar', length: 42 })
  address: string;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
