import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The leases of instances with acknowledged cache coherence (CacheLeases). Unlogged: every instance writes its row
 * on each renewal and acknowledgement, which need no WAL; after a crash of the server the table is empty and every
 * instance, finding its row gone, joins again.
 */
export class CacheLeases1795920000000 implements MigrationInterface {
  name = 'CacheLeases1795920000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "cache_leases" ("instance_id" uuid NOT NULL, "applied" text, "lease_until" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "pk_cache_leases" PRIMARY KEY ("instance_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "cache_leases"`);
  }
}
