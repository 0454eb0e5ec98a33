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

/** One approved payment for one renewal period, written in the renewal's transaction by the payment gateway. */
@Entity({ name: 'payments' })
@Index('ix_payments_address_created_at', ['address', 'createdAt'])
@Check('ck_payments_amount_minor', `amount_minor >= 0`)
@Check('ck_payments_currency', `currency IS NOT NULL OR amount_minor = 0`)
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

  /** In the currency's minor unit (cents, wei, …). */
  @Column({ name: 'amount_minor', type: 'bigint' })
  amountMinor: string;

  /** Null only for a free (zero-amount) payment. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  currency: string | null;

  /** The stretch of time this payment bought. */
  @Column({ name: 'period_start', type: 'timestamptz' })
  periodStart: Date;

  @Column({ name: 'period_end', type: 'timestamptz' })
  periodEnd: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
