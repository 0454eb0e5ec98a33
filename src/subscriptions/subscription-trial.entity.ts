import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The trials wallets have taken, one row per (address, plan), ever: the primary key is the rule "one trial per plan
 * per wallet", held by the database under concurrency (the trial's credit inserts the row in its transaction; a
 * concurrent insert of the same key waits for it, then inserts nothing and the wallet gets no trial). Kept after the
 * trial ends, and never deleted with the subscription.
 */
@Entity({ name: 'subscription_trials' })
@Check('ck_subscription_trials_address_lowercase', `address = lower(address)`)
@Check('ck_subscription_trials_period', `trial_end > started_at`)
// The trial reminder sweep looks only at trials not yet reminded of: a small partial index.
@Index('ix_subscription_trials_reminder_pending', ['trialEnd'], { where: 'reminded_at IS NULL' })
export class SubscriptionTrialEntity {
  /** Lowercase wallet address. */
  @PrimaryColumn({ type: 'varchar', length: 42, primaryKeyConstraintName: 'pk_subscription_trials' })
  address: string;

  /** The plan tried (a text id, as `subscriptions.plan_id`: plans are never deleted). */
  @PrimaryColumn({
    name: 'plan_id',
    type: 'varchar',
    length: 32,
    primaryKeyConstraintName: 'pk_subscription_trials',
  })
  planId: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  /** The trial's end as granted (a cancel now ends the subscription's trial sooner; this row keeps the grant). */
  @Column({ name: 'trial_end', type: 'timestamptz' })
  trialEnd: Date;

  /** When `subscription.trial_will_end` was recorded: set once, which makes the reminder exactly-once. */
  @Column({ name: 'reminded_at', type: 'timestamptz', nullable: true })
  remindedAt: Date | null;
}
