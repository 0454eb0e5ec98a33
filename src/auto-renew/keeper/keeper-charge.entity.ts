import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Where a charge stands (docs/decisions/2026-11-27-keeper-charges-exactly-once.md). */
export const KEEPER_CHARGE_STATES = ['claimed', 'sent', 'confirmed', 'reverted'] as const;
export type KeeperChargeState = (typeof KEEPER_CHARGE_STATES)[number];

/**
 * One period of one mandate that the keeper is charging or has charged: at most one row per charge, ever, claimed by
 * the process that inserts it. The signed transaction is written here before it is broadcast, so a keeper that stops
 * between sending and the receipt finds it again and reconciles with the chain instead of sending a second charge.
 */
@Entity({ name: 'keeper_charges' })
// Two charges never share a nonce of one key: a second would replace the first in the mempool.
@Index('ux_keeper_charges_nonce', ['chainId', 'keeper', 'nonce'], {
  unique: true,
  where: 'nonce IS NOT NULL',
})
// The oldest charge still waiting for the chain (the metric, the operator's look).
@Index('ix_keeper_charges_waiting', ['createdAt'], { where: `state IN ('claimed', 'sent')` })
@Check('ck_keeper_charges_state', `state IN ('claimed', 'sent', 'confirmed', 'reverted')`)
@Check('ck_keeper_charges_period_index', `period_index >= 0`)
@Check(
  'ck_keeper_charges_sent',
  `state = 'claimed' OR (nonce IS NOT NULL AND tx_hash IS NOT NULL AND raw_tx IS NOT NULL AND sent_at IS NOT NULL ` +
    `AND max_fee_per_gas IS NOT NULL AND max_priority_fee_per_gas IS NOT NULL)`,
)
@Check(
  'ck_keeper_charges_confirmed',
  `(state = 'confirmed') = (transfer_tx_hash IS NOT NULL AND transfer_log_index IS NOT NULL)`,
)
export class KeeperChargeEntity {
  /** The mandate's EIP-712 digest (lowercase), which names the chain and the charger too. */
  @PrimaryColumn({
    name: 'mandate_hash',
    type: 'varchar',
    length: 66,
    primaryKeyConstraintName: 'pk_keeper_charges',
  })
  mandateHash: string;

  @PrimaryColumn({
    name: 'period_index',
    type: 'numeric',
    precision: 78,
    scale: 0,
    primaryKeyConstraintName: 'pk_keeper_charges',
  })
  periodIndex: string;

  @Column({ type: 'varchar', length: 16 })
  state: KeeperChargeState;

  /** Names the claim in force: only its holder records the transaction (a claim taken over gets a new one). */
  @Column({ name: 'claim_token', type: 'uuid' })
  claimToken: string;

  /** A `claimed` row no process has sent by then may be taken over (its process stopped before signing). */
  @Column({ name: 'claimed_until', type: 'timestamptz' })
  claimedUntil: Date;

  @Column({ name: 'chain_id', type: 'bigint' })
  chainId: string;

  /** Lowercase address of the key that signs the charge. */
  @Column({ type: 'varchar', length: 42 })
  keeper: string;

  @Column({ type: 'bigint', nullable: true })
  nonce: string | null;

  /** The transaction in force (the last replacement); lowercase. */
  @Column({ name: 'tx_hash', type: 'varchar', length: 66, nullable: true })
  txHash: string | null;

  /** The signed transaction, broadcast again as it is until it is mined or replaced. */
  @Column({ name: 'raw_tx', type: 'text', nullable: true })
  rawTx: string | null;

  @Column({ name: 'max_fee_per_gas', type: 'numeric', precision: 78, scale: 0, nullable: true })
  maxFeePerGas: string | null;

  @Column({ name: 'max_priority_fee_per_gas', type: 'numeric', precision: 78, scale: 0, nullable: true })
  maxPriorityFeePerGas: string | null;

  /** Transactions of the same nonce this one replaced: any of them may still be the one mined. */
  @Column({ name: 'replaced_tx_hashes', type: 'varchar', length: 66, array: true, default: () => `'{}'` })
  replacedTxHashes: string[];

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  /** Transactions sent afresh (with a new nonce) after one reverted or its nonce went to another transaction. */
  @Column({ type: 'integer', default: 0 })
  resends: number;

  /** Once confirmed: the transaction that carried the charge and its token `Transfer` log. */
  @Column({ name: 'transfer_tx_hash', type: 'varchar', length: 66, nullable: true })
  transferTxHash: string | null;

  @Column({ name: 'transfer_log_index', type: 'integer', nullable: true })
  transferLogIndex: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
