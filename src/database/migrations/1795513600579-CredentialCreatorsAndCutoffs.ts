import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which credential created each API key (a session token's id or the creating key's id, so that revoking a key can
 * revoke the keys it made), and per-wallet session cutoffs ("sign out everywhere"), which publish their cache
 * invalidations like the other credential tables (topic 'session_cutoff', key the lowercase address).
 */
export class CredentialCreatorsAndCutoffs1795513600579 implements MigrationInterface {
  name = 'CredentialCreatorsAndCutoffs1795513600579';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "session_cutoffs" ("address" character varying(42) NOT NULL, "not_before" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "ck_session_cutoffs_address_lowercase" CHECK (address = lower(address)), CONSTRAINT "PK_fe610ea3c41949470216b979d3f" PRIMARY KEY ("address"))`,
    );
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "created_by_key_id" uuid`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "created_by_session" uuid`);
    await queryRunner.query(
      `CREATE INDEX "ix_api_keys_created_by_key_id" ON "api_keys" ("created_by_key_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "ck_api_keys_one_creator" CHECK (created_by_key_id IS NULL OR created_by_session IS NULL)`,
    );
    await queryRunner.query(`
            CREATE FUNCTION "session_cutoffs_invalidate"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM "invalidate_cache"('session_cutoff', CASE WHEN TG_OP = 'DELETE' THEN OLD."address" ELSE NEW."address" END);
                RETURN NULL;
            END
            $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER "tr_session_cutoffs_invalidate" AFTER INSERT OR UPDATE OR DELETE ON "session_cutoffs"
            FOR EACH ROW EXECUTE FUNCTION "session_cutoffs_invalidate"()
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "tr_session_cutoffs_invalidate" ON "session_cutoffs"`);
    await queryRunner.query(`DROP FUNCTION "session_cutoffs_invalidate"()`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "ck_api_keys_one_creator"`);
    await queryRunner.query(`DROP INDEX "public"."ix_api_keys_created_by_key_id"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "created_by_session"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "created_by_key_id"`);
    await queryRunner.query(`DROP TABLE "session_cutoffs"`);
  }
}
