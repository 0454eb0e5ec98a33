import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A registered automatic renewal (docs/auto-renew.md): under `erc20` the payer's signed mandate for the charging
 * contract, under `free` its terms alone. At most one enabled per wallet; disabled and ended ones stay as history.
 * The renewal sweep works from `next_charge_at`, claiming a mandate with a lease (`lease_until`) so that one
 * instance at a time charges it; `charged_through` is the last period index credited, which a second credit of the
 * same index cannot pass.
 */
@Entity({ name: 'auto_renew_mandates' })
@Check('ck_auto_renew_mandates_address_lowercase', `address = lower(address)`)
@Check('ck_auto_renew_mandates_status', `status IN ('enabled', 'disabled', 'ended')`)
@Check('ck_auto_renew_mandates_gateway', `gateway IN ('free', 'erc20')`)
@Check('ck_auto_renew_mandates_terms', `amount_minor >= 0 AND period_seconds > 0 AND periods > 0`)
// An `erc20` mandate carries everything the contract needs; a `free` one none of it.
@Check(
  'ck_auto_renew_mandates_signed',
  `(gateway = 'erc20') = (mandate_hash IS NOT NULL AND signature IS NOT NULL AND salt IS NOT NULL AND ` +
    `chain_id IS NOT NULL AND charger IS NOT NULL AND token IS NOT NULL AND payee IS NOT NULL)`,
)
@Index('ux_auto_renew_mandates_enabled_address', ['address'], { unique: true, where: `status = 'enabled'` })
@Index('ux_auto_renew_mandates_hash', ['mandateHash'], { unique: true, where: 'mandate_hash IS NOT NULL' })
// The sweep's claim: enabled mandates in the order they fall due.
@Index('ix_auto_renew_mandates_due', ['nextChargeAt'], { where: `status = 'enabled'` })
export class MandateEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_auto_renew_mandates' })
  id: string;

  /** Lowercase wallet address of the subscription (and the payer). */
  @Column({ type: 'varchar', length: 42 })
  address: string;

  @Column({ type: 'varchar', length: 16 })
  status: 'enabled' | 'disabled' | 'ended';

  /** The payment gateway it was registered under: `free` charges nothing, `erc20` through the contract. */
  @Column({ type: 'varchar', length: 16 })
  gateway: 'free' | 'erc20';

  @Column({ name: 'chain_id', type: 'integer', nullable: true })
  chainId: number | null;

  /** Lowercase addresses. */
  @Column({ type: 'varchar', length: 42, nullable: true })
  charger: string | null;

  @Column({ type: 'varchar', length: 42, nullable: true })
  token: string | null;

  @Column({ type: 'varchar', length: 42, nullable: true })
  payee: string | null;

  /** Per period, in the token's smallest unit. */
  @Column({ name: 'amount_minor', type: 'numeric', precision: 78, scale: 0 })
  amountMinor: string;

  @Column({ name: 'period_seconds', type: 'integer' })
  periodSeconds: number;

  /** The mandate's `start`: period index 0 begins then. */
  @Column({ name: 'start_at', type: 'timestamptz' })
  startAt: Date;

  @Column({ type: 'integer' })
  periods: number;

  @Column({ type: 'varchar', length: 66, nullable: true })
  salt: string | null;

  /** The EIP-712 digest (lowercase hex), which names the mandate on chain. */
  @Column({ name: 'mandate_hash', type: 'varchar', length: 66, nullable: true })
  mandateHash: string | null;

  /** The payer's signature as registered (lowercase hex). */
  @Column({ type: 'text', nullable: true })
  signature: string | null;

  /** The last period index credited; null before the first. */
  @Column({ name: 'charged_through', type: 'integer', nullable: true })
  chargedThrough: number | null;

  /** When the sweep looks at it next: AUTO_RENEW_LEAD_SECONDS before the period end, or the next retry. */
  @Column({ name: 'next_charge_at', type: 'timestamptz' })
  nextChargeAt: Date;

  /** Failed attempts in a row at the period now due (picks the retry delay). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'failure_reason', type: 'varchar', length: 32, nullable: true })
  failureReason: string | null;

  @Column({ name: 'failure_message', type: 'text', nullable: true })
  failureMessage: string | null;

  @Column({ name: 'failed_at', type: 'timestamptz', nullable: true })
  failedAt: Date | null;

  /** How much the allowance fell short of one period's amount, as last read (0: enough). */
  @Column({ name: 'allowance_shortfall', type: 'numeric', precision: 78, scale: 0, default: 0 })
  allowanceShortfall: string;

  /** Why it ended (`mandate_revoked`, `mandate_ended`, `subscription_ended`, …); null while not ended. */
  @Column({ name: 'ended_reason', type: 'varchar', length: 32, nullable: true })
  endedReason: string | null;

  /** Until then one sweep holds it (between its claim and the charge's outcome). */
  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
