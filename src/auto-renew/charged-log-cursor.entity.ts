import { Check, Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * How far the Charged-log follower (ChargedLogFollower) has read each charging contract's `Charged` logs: the
 * first block not read yet. Only ever moved forward (`GREATEST`), so instances following at once are harmless.
 */
@Entity({ name: 'auto_renew_log_cursors' })
@Check('ck_auto_renew_log_cursors_next_block', `next_block >= 0`)
export class ChargedLogCursorEntity {
  @PrimaryColumn({ name: 'chain_id', type: 'bigint', primaryKeyConstraintName: 'pk_auto_renew_log_cursors' })
  chainId: string;

  /** The charging contract, lowercase. */
  @PrimaryColumn({ type: 'varchar', length: 42, primaryKeyConstraintName: 'pk_auto_renew_log_cursors' })
  charger: string;

  @Column({ name: 'next_block', type: 'bigint' })
  nextBlock: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
