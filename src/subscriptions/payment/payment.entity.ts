import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { SubscriptionEntity } from '../subscription.entity.js';

/** One approved payment for one renewal, written in the renewal's transaction. */
@Entity({ name: 'payments' })
@Index('ix_payments_address_created_at', ['address', 'createdAt'])
// Each on-chain transfer pays once, ever: of two renewals citing it, even at the same moment, one inserts it.
@Index('ux_payments_transfer', ['chainId', 'txHash', 'logIndex'], { unique: true })
@Check('ck_payments_amount_minor', `amount_minor >= 0`)
@Check('ck_payments_priced', `amount_minor = 0 OR currency IS NOT NULL OR token IS NOT NULL`)
@Check(
  'ck_payments_transfer',
  `(chain_id IS NULL AND token IS NULL AND payer IS NULL AND tx_hash IS NULL AND log_index IS NULL) OR ` +
    `(chain_id IS NOT NULL AND token IS NOT NULL AND payer IS NOT NULL AND tx_hash IS NOT NULL AND log_index IS NOT NULL)`,
)
export class PaymentEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_payments' })
  id: string;

  /** Lowercase wallet address of the subscription paid for. */
  @Column({ type: 'varchar', length: 42 })
  address: string;

  // Declares the foreign key; never loaded: queries are raw SQL. Payments are financial records, so deleting
  // a subscription must not silently take them along.
  @ManyToOne(() => SubscriptionEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({
    name: 'address',
    referencedColumnName: 'address',
    foreignKeyConstraintName: 'fk_payments_address',
  })
  subscription?: SubscriptionEntity;

  /** Which `PaymentGateway` implementation approved it. */
  @Column({ type: 'varchar', length: 32 })
  gateway: string;

  /** In the currency's smallest unit (cents, a token's base unit, …): up to a uint256. */
  @Column({ name: 'amount_minor', type: 'numeric', precision: 78, scale: 0 })
  amountMinor: string;

  /** An off-chain currency's code; null for a free payment and for a token (`token` names it). */
  @Column({ type: 'varchar', length: 16, nullable: true })
  currency: string | null;

  /** The chain of an on-chain payment; null otherwise, as are the four columns below. */
  @Column({ name: 'chain_id', type: 'bigint', nullable: true })
  chainId: string | null;

  /** Lowercase address of the ERC-20 contract paid in. */
  @Column({ type: 'varchar', length: 42, nullable: true })
  token: string | null;

  /** Lowercase address the transfer came from. */
  @Column({ type: 'varchar', length: 42, nullable: true })
  payer: string | null;

  /** Lowercase. */
  @Column({ name: 'tx_hash', type: 'varchar', length: 66, nullable: true })
  txHash: string | null;

  /** The transfer's log within the transaction's receipt. */
  @Column({ name: 'log_index', type: 'integer', nullable: true })
  logIndex: number | null;

  /** The stretch of time this payment bought. */
  @Column({ name: 'period_start', type: 'timestamptz' })
  periodStart: Date;

  @Column({ name: 'period_end', type: 'timestamptz' })
  periodEnd: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
