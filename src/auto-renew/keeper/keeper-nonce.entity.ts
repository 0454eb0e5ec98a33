import { Check, Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * The next nonce of each keeper key on each chain, handed out in the transaction that records the charge it signs:
 * processes sharing a key never take the same nonce and never skip one.
 */
@Entity({ name: 'keeper_nonces' })
@Check('ck_keeper_nonces_next_nonce', `next_nonce >= 0`)
export class KeeperNonceEntity {
  @PrimaryColumn({ name: 'chain_id', type: 'bigint', primaryKeyConstraintName: 'pk_keeper_nonces' })
  chainId: string;

  /** Lowercase. */
  @PrimaryColumn({ type: 'varchar', length: 42, primaryKeyConstraintName: 'pk_keeper_nonces' })
  address: string;

  @Column({ name: 'next_nonce', type: 'bigint' })
  nextNonce: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
