import { MigrationInterface, QueryRunner } from 'typeorm';

export class CacheInvalidations1795315400000 implements MigrationInterface {
  name = 'CacheInvalidations1795315400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "cache_invalidations" (
                "id" BIGSERIAL NOT NULL,
                "xid" bigint NOT NULL,
                "topic" character varying(32) NOT NULL,
                "key" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_99f36cb7efaaaaf6854eab36d71" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_cache_invalidations_xid" ON "cache_invalidations" ("xid")
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_cache_invalidations_created_at" ON "cache_invalidations" ("created_at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."ix_cache_invalidations_created_at"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_cache_invalidations_xid"
        `);
    await queryRunner.query(`
            DROP TABLE "cache_invalidations"
        `);
  }
}
