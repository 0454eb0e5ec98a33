import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The outbox: every domain event, written in the same transaction as the change that caused it. Webhook deliveries
 * are derived from it in that same transaction, so a committed change always has its event and a rolled-back one
 * never does.
 */
@Entity({ name: 'events' })
@Index('ix_events_address_created_at', ['address', 'createdAt'])
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
