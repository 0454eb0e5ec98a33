import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A wallet's automatic renewal, shown in every subscription object, is cached per instance (AutoRenewService): a
 * change of what the object shows of a mandate writes its invalidation, topic 'auto_renew', key the lowercase
 * address, in the changing transaction (a sweep's lease alone writes none). The text is what
 * `invalidationTrigger({ table: 'auto_renew_mandates', topic: 'auto_renew', key, watched })` writes
 * (src/cache/invalidation-trigger.ts), kept literal as migrations are history; test/cache-coherence.e2e-spec.ts
 * compares the two.
 */
export class MandateCacheInvalidations1795820000000 implements MigrationInterface {
  name = 'MandateCacheInvalidations1795820000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE FUNCTION "auto_renew_mandates_invalidate"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'UPDATE' AND (OLD."address", OLD."status", OLD."next_charge_at", OLD."amount_minor", OLD."token", OLD."start_at", OLD."periods", OLD."period_seconds", OLD."allowance_shortfall", OLD."failure_reason", OLD."failure_message", OLD."failed_at") IS NOT DISTINCT FROM (NEW."address", NEW."status", NEW."next_charge_at", NEW."amount_minor", NEW."token", NEW."start_at", NEW."periods", NEW."period_seconds", NEW."allowance_shortfall", NEW."failure_reason", NEW."failure_message", NEW."failed_at") THEN
                    RETURN NULL;
                END IF;
                IF TG_OP <> 'INSERT' THEN
                    PERFORM "invalidate_cache"('auto_renew', (OLD."address")::text);
                END IF;
                IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW."address") IS DISTINCT FROM (OLD."address")) THEN
                    PERFORM "invalidate_cache"('auto_renew', (NEW."address")::text);
                END IF;
                RETURN NULL;
            END
            $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER "tr_auto_renew_mandates_invalidate" AFTER INSERT OR UPDATE OR DELETE ON "auto_renew_mandates"
            FOR EACH ROW EXECUTE FUNCTION "auto_renew_mandates_invalidate"()
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "tr_auto_renew_mandates_invalidate" ON "auto_renew_mandates"`);
    await queryRunner.query(`DROP FUNCTION "auto_renew_mandates_invalidate"()`);
  }
}
