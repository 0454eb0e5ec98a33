import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored plans are cached per instance (PlanReads): any change of a plan row writes its invalidation, topic 'plan',
 * key the plan id, in the changing transaction. Every column counts: a plan's name, features, archive and terms all
 * show in the subscription object. The text is what `invalidationTrigger({ table: 'plans', topic: 'plan', key })`
 * writes (src/cache/invalidation-trigger.ts), kept literal as migrations are history; test/cache-coherence.e2e-spec.ts
 * compares the two.
 */
export class PlanCacheInvalidations1795813492766 implements MigrationInterface {
  name = 'PlanCacheInvalidations1795813492766';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE FUNCTION "plans_invalidate"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    PERFORM "invalidate_cache"('plan', (OLD."id")::text);
                END IF;
                IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW."id") IS DISTINCT FROM (OLD."id")) THEN
                    PERFORM "invalidate_cache"('plan', (NEW."id")::text);
                END IF;
                RETURN NULL;
            END
            $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER "tr_plans_invalidate" AFTER INSERT OR UPDATE OR DELETE ON "plans"
            FOR EACH ROW EXECUTE FUNCTION "plans_invalidate"()
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "tr_plans_invalidate" ON "plans"`);
    await queryRunner.query(`DROP FUNCTION "plans_invalidate"()`);
  }
}
