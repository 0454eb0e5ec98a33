import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One subscription per wallet. Only timestamps are stored: the status is derived from them at read time
 * (subscription-state.ts), so it is never stale whatever the background jobs do.
 */
@Entity({ name: 'subscriptions' })
@Check('ck_subscriptions_address_lowercase', `address = lower(address)`)
@Check('ck_subscriptions_period', `current_period_end >= current_period_start`)
// The expiry sweep only ever looks at periods whose expiry is still to be recorded: a small partial index.
@Index('ix_subscriptions_expiry_pending', ['currentPeriodEnd'], {
  where: 'expiry_recorded_for IS DISTINCT FROM current_period_end',
})
export class SubscriptionEntity {
  /** Lowercase wallet address. */
  @PrimaryColumn({ type: 'varchar', length: 42, primaryKeyConstraintName: 'pk_subscriptions' })
  address: string;

  @Column({ name: 'current_period_start', type: 'timestamptz' })
  currentPeriodStart: Date;

  /** The first instant no longer covered. */
  @Column({ name: 'current_period_end', type: 'timestamptz' })
  currentPeriodEnd: Date;

  @Column({ name: 'cancel_at_period_end', type: 'boolean', default: false })
  cancelAtPeriodEnd: boolean;

  @Column({ name: 'canceled_at', type: 'timestamptz', nullable: true })
  canceledAt: Date | null;

  /**
   * The period end whose `subscription.expired` event has been recorded. A period end differing from it, once
   * passed, is an expiry still to record: this is what makes the event exactly-once per period end.
   */
  @Column({ name: 'expiry_recorded_for', type: 'timestamptz', nullable: true })
  expiryRecordedFor: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
