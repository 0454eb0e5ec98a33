import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One subscription per wallet. Only timestamps are stored: the status is derived from them at read time
 * (subscription-state.ts), so it is never stale whatever the background jobs do.
 */
@Entity({ name: 'subscriptions' })
@Check('ck_subscriptions_address_lowercase', `address = lower(address)`)
@Check('ck_subscriptions_period', `current_period_end >= current_period_start`)
// A trial lies within its period (a cancel now ends both at once).
@Check(
  'ck_subscriptions_trial_end',
  `trial_end IS NULL OR (trial_end >= current_period_start AND trial_end <= current_period_end)`,
)
// A scheduled plan change has both its plan and its date, or neither.
@Check('ck_subscriptions_grace', `grace_until IS NULL OR grace_until >= current_period_end`)
@Check('ck_subscriptions_pending_plan', `(pending_plan_id IS NULL) = (pending_plan_at IS NULL)`)
// The expiry sweep only ever looks at periods whose expiry is still to be recorded: a small partial index.
@Index('ix_subscriptions_expiry_pending', ['currentPeriodEnd'], {
  where: 'expiry_recorded_for IS DISTINCT FROM current_period_end',
})
// Whether a plan has subscribers (PlanUsage), asked when an operator changes its price or period.
@Index('ix_subscriptions_plan_id', ['planId'], { where: `plan_id <> 'default'` })
@Index('ix_subscriptions_pending_plan_id', ['pendingPlanId'], { where: 'pending_plan_id IS NOT NULL' })
export class SubscriptionEntity {
  /** Lowercase wallet address. */
  @PrimaryColumn({ type: 'varchar', length: 42, primaryKeyConstraintName: 'pk_subscriptions' })
  address: string;

  @Column({ name: 'current_period_start', type: 'timestamptz' })
  currentPeriodStart: Date;

  /** The first instant no longer covered. */
  @Column({ name: 'current_period_end', type: 'timestamptz' })
  currentPeriodEnd: Date;

  /**
   * The plan the current period is on. `default` (the settings' plan) is not a stored row, so this is no foreign
   * key: the id is checked against the plans table when it is chosen, under the plan row's FOR SHARE lock, and
   * plans are never deleted, so it cannot dangle.
   */
  @Column({ name: 'plan_id', type: 'varchar', length: 32, default: 'default' })
  planId: string;

  /** The end of the trial the current period is, if it is one; renewing during it adds the paid period after it. */
  @Column({ name: 'trial_end', type: 'timestamptz', nullable: true })
  trialEnd: Date | null;

  /** A cheaper plan chosen for the next period, and when it takes effect (the current period's end). */
  @Column({ name: 'pending_plan_id', type: 'varchar', length: 32, nullable: true })
  pendingPlanId: string | null;

  @Column({ name: 'pending_plan_at', type: 'timestamptz', nullable: true })
  pendingPlanAt: Date | null;

  @Column({ name: 'cancel_at_period_end', type: 'boolean', default: false })
  cancelAtPeriodEnd: boolean;

  @Column({ name: 'canceled_at', type: 'timestamptz', nullable: true })
  canceledAt: Date | null;

  /**
   * Set when an automatic charge failed: `past_due` until then (subscription-state.ts), while the charge is
   * retried; cleared by a renewal or a cancel.
   */
  @Column({ name: 'grace_until', type: 'timestamptz', nullable: true })
  graceUntil: Date | null;

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
