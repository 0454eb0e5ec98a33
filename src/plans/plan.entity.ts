import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A plan an operator sells besides `default` (which the settings define and is never stored: plan-catalog.ts). The
 * rules of its fields are held here as constraints, so no write path (nor an operator's SQL) can store a plan the
 * API would refuse.
 */
@Entity({ name: 'plans' })
// The slug: lowercase letters, digits and hyphens, starting with a letter or digit; `default` is the settings' plan.
@Check('ck_plans_id', `id ~ '^[a-z0-9][a-z0-9-]{0,31}$' AND id <> 'default'`)
@Check('ck_plans_period_seconds', `period_seconds > 0`)
@Check('ck_plans_price_per_period', `price_per_period >= 0`)
@Check('ck_plans_trial_seconds', `trial_seconds IS NULL OR trial_seconds > 0`)
// Each feature 1–64 of [a-z0-9._-], no NULL element (array_to_string skips NULLs, array_position finds them). The
// elements are checked joined by commas, which no feature may hold; the split count catches an element that does.
@Check(
  'ck_plans_features',
  `array_position(features, NULL) IS NULL AND (cardinality(features) = 0 OR (` +
    `array_to_string(features, ',') ~ '^[a-z0-9._-]{1,64}(,[a-z0-9._-]{1,64})*$' AND ` +
    `cardinality(string_to_array(array_to_string(features, ','), ',')) = cardinality(features)))`,
)
// Offered plans, listed in creation order, and counted against PLANS_MAX.
@Index('ix_plans_offered_created_at', ['createdAt', 'id'], { where: 'archived_at IS NULL' })
export class PlanEntity {
  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'pk_plans' })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 500, default: '' })
  description: string;

  @Column({ name: 'period_seconds', type: 'integer' })
  periodSeconds: number;

  /** In the payment token's smallest unit; an integer of up to 78 digits (uint256), read as a decimal string. */
  @Column({ name: 'price_per_period', type: 'numeric', precision: 78, scale: 0 })
  pricePerPeriod: string;

  @Column({ type: 'text', array: true, default: () => `'{}'` })
  features: string[];

  @Column({ name: 'trial_seconds', type: 'integer', nullable: true })
  trialSeconds: number | null;

  /** Set once: an archived plan keeps its subscribers but is no longer offered. */
  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
