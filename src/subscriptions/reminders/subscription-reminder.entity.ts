import { CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SubscriptionEntity } from '../subscription.entity.js';

/**
 * The period ends whose `subscription.expiring` event has been recorded, one row per (address, period end). The
 * primary key is what makes the reminder exactly-once across instances: the sweep inserts the row and records the
 * event in one transaction, and a concurrent insert of the same key waits for it, then does nothing. A renewal
 * moves the period end, so the new end is a new key: the reminder is armed again by itself.
 */
@Entity({ name: 'subscription_reminders' })
// The sweep deletes the rows of period ends that have passed (they can never be due again).
@Index('ix_subscription_reminders_period_end', ['periodEnd'])
export class SubscriptionReminderEntity {
  /** Lowercase wallet address. */
  @PrimaryColumn({ type: 'varchar', length: 42, primaryKeyConstraintName: 'pk_subscription_reminders' })
  address: string;

  @PrimaryColumn({
    name: 'period_end',
    type: 'timestamptz',
    primaryKeyConstraintName: 'pk_subscription_reminders',
  })
  periodEnd: Date;

  @ManyToOne(() => SubscriptionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'address', foreignKeyConstraintName: 'fk_subscription_reminders_address' })
  subscription?: SubscriptionEntity;

  /** When the reminder was recorded. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
