import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One row per change that cached reads must not outlive (a logout, a key revocation, a subscription change),
 * written in the changing transaction. Instances read the rows of transactions they have not seen yet before they
 * answer from a cache (see InvalidationLog); rows are purged after an hour.
 */
@Entity({ name: 'cache_invalidations' })
export class CacheInvalidationEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** The writing transaction's id (`pg_current_xact_id()`), by which readers pick up what they missed. */
  @Index('ix_cache_invalidations_xid')
  @Column({ type: 'bigint' })
  xid: string;

  @Column({ type: 'varchar', length: 32 })
  topic: string;

  @Column({ type: 'text' })
  key: string;

  @Index('ix_cache_invalidations_created_at')
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
