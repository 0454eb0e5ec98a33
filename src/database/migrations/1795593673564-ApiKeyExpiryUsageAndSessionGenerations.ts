import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys that expire (`expires_at`, and the two notice claims of the expiry sweep), per-key daily request counts,
 * and a per-wallet session generation for "sign out everywhere": session tokens carry the generation they were
 * issued under (`gen`), so a cutoff is exact whatever second it falls in. Rows already there draw a generation
 * from the new sequence; tokens issued before this carry none and are still checked by their `iat`.
 */
export class ApiKeyExpiryUsageAndSessionGenerations1795593673564 implements MigrationInterface {
  name = 'ApiKeyExpiryUsageAndSessionGenerations1795593673564';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_key_usage_daily" ("key_id" uuid NOT NULL, "day" date NOT NULL, "count" bigint NOT NULL, CONSTRAINT "ck_api_key_usage_daily_count_positive" CHECK (count > 0), CONSTRAINT "pk_api_key_usage_daily" PRIMARY KEY ("key_id", "day"))`,
    );
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "expires_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "expiring_notified_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "expired_notified_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "session_cutoffs" ADD "generation" BIGSERIAL NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "ix_api_keys_expiry_pending" ON "api_keys" ("expires_at") WHERE expires_at IS NOT NULL AND expired_notified_at IS NULL AND revoked_at IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_key_usage_daily" ADD CONSTRAINT "fk_api_key_usage_daily_key" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_key_usage_daily" DROP CONSTRAINT "fk_api_key_usage_daily_key"`);
    await queryRunner.query(`DROP INDEX "public"."ix_api_keys_expiry_pending"`);
    await queryRunner.query(`ALTER TABLE "session_cutoffs" DROP COLUMN "generation"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "expired_notified_at"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "expiring_notified_at"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "expires_at"`);
    await queryRunner.query(`DROP TABLE "api_key_usage_daily"`);
  }
}
