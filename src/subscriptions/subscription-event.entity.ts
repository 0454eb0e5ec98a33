import {
  Check,
  Column,
  Entity,
  Generated,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { PaymentEntity } from './payment/payment.entity.js';
import { SubscriptionEntity } from './subscription.entity.js';

export const SUBSCRIPTION_EVENT_TYPES = [
  'renewed',
  // An automatic charge that failed (the subscription `past_due`).
  'payment_failed',
  'canceled',
  'expired',
  // A change of plan taking effect; one scheduled for the period end; a scheduled one dropped.
  'plan_changed',
  'plan_scheduled',
  'plan_unscheduled',
] as const;
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

/** The `actor` of changes nobody requested (an expiry recorded by the sweep). */
export const SYSTEM_ACTOR = 'system';

/** Append-only history of a subscription: what changed, when, and on whose request. */
@Entity({ name: 'subscription_events' })
@Check(
  'ck_subscription_events_type',
  `type IN ('renewed', 'payment_failed', 'canceled', 'expired', 'plan_changed', 'plan_scheduled', 'plan_unscheduled')`,
)
@Check('ck_subscription_events_actor', `actor = 'system' OR actor ~ '^0x[0-9a-f]{40}$'`)
@Index('ix_subscription_events_address_at', ['address', 'at', 'seq'])
export class SubscriptionEventEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_subscription_events' })
  id: string;

  /**
   * Insertion order. Every write of one address happens under its row lock, so this is the order the changes
   * took effect; it breaks ties of `at` (an immediate cancel and the expiry it causes share an instant).
   */
  @Column({ type: 'bigint' })
  @Generated('increment')
  seq: string;

  /** Lowercase wallet address of the subscription. */
  @Column({ type: 'varchar', length: 42 })
  address: string;

  // Declares the foreign key (history goes with its subscription); never loaded: queries are raw SQL.
  @ManyToOne(() => SubscriptionEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({
    name: 'address',
    referencedColumnName: 'address',
    foreignKeyConstraintName: 'fk_subscription_events_address',
  })
  subscription?: SubscriptionEntity;

  @Column({ type: 'varchar', length: 16 })
  type: SubscriptionEventType;

  /** When it took effect; for an expiry, the period end itself. */
  @Column({ type: 'timestamptz' })
  at: Date;

  /** Lowercase address of the wallet whose credential asked for it, or `system`. */
  @Column({ type: 'varchar', length: 42 })
  actor: string;

  /** The API key used, when the actor acted through one. */
  @Column({ name: 'actor_key_id', type: 'varchar', length: 64, nullable: true })
  actorKeyId: string | null;

  @Column({ name: 'previous_period_end', type: 'timestamptz', nullable: true })
  previousPeriodEnd: Date | null;

  @Column({ name: 'current_period_end', type: 'timestamptz' })
  currentPeriodEnd: Date;

  /** The payment a renewal recorded (null for other changes, and for renewals made before payments were linked). */
  @Column({ name: 'payment_id', type: 'uuid', nullable: true })
  paymentId: string | null;

  // Declares the foreign key; never loaded.
  @ManyToOne(() => PaymentEntity, { onDelete: 'RESTRICT', nullable: true })
  @JoinColumn({ name: 'payment_id', foreignKeyConstraintName: 'fk_subscription_events_payment' })
  payment?: PaymentEntity | null;

  /** The plan changed from (plan entries only). */
  @Column({ name: 'previous_plan_id', type: 'varchar', length: 32, nullable: true })
  previousPlanId: string | null;

  /** The plan changed (or scheduled to change, or no longer) to (plan entries only). */
  @Column({ name: 'plan_id', type: 'varchar', length: 32, nullable: true })
  planId: string | null;

  /** The Idempotency-Key the change was requested with, if any. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey: string | null;
}
