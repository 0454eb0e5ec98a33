import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row per instance running with `CACHE_COHERENCE=acknowledged` (CacheLeases): what it has applied of the
 * invalidation log, and until when writers wait for it. A writer of a cached table answers only once every row whose
 * lease holds has applied its transaction; an instance answers from its caches without reading the log only while
 * its own lease holds. The table is UNLOGGED (migration CacheLeases): rows are rewritten often and worth nothing after
 * a crash of the server, when every instance joins again.
 */
@Entity({ name: 'cache_leases' })
export class CacheLeaseEntity {
  @PrimaryColumn({ name: 'instance_id', type: 'uuid', primaryKeyConstraintName: 'pk_cache_leases' })
  instanceId: string;

  /**
   * `pg_current_snapshot()` of the last log read whose invalidations the instance applied, as text: every
   * transaction it shows as ended is applied there. Null from a (re)join until the first acknowledgement.
   */
  @Column({ type: 'text', nullable: true })
  applied: string | null;

  /** Writers stop waiting for the instance at this time (the database's clock), unless it renews. */
  @Column({ name: 'lease_until', type: 'timestamptz' })
  leaseUntil: Date;
}
