import { MigrationInterface, QueryRunner } from 'typeorm';

/** The plans operators sell besides `default` (src/plans/plan.entity.ts holds the rules). */
export class Plans1795798423483 implements MigrationInterface {
  name = 'Plans1795798423483';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "plans" ("id" character varying(32) NOT NULL, "name" character varying(64) NOT NULL, "description" character varying(500) NOT NULL DEFAULT '', "period_seconds" integer NOT NULL, "price_per_period" numeric(78,0) NOT NULL, "features" text array NOT NULL DEFAULT '{}', "trial_seconds" integer, "archived_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ck_plans_features" CHECK (array_position(features, NULL) IS NULL AND (cardinality(features) = 0 OR (array_to_string(features, ',') ~ '^[a-z0-9._-]{1,64}(,[a-z0-9._-]{1,64})*$' AND cardinality(string_to_array(array_to_string(features, ','), ',')) = cardinality(features)))), CONSTRAINT "ck_plans_trial_seconds" CHECK (trial_seconds IS NULL OR trial_seconds > 0), CONSTRAINT "ck_plans_price_per_period" CHECK (price_per_period >= 0), CONSTRAINT "ck_plans_period_seconds" CHECK (period_seconds > 0), CONSTRAINT "ck_plans_id" CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,31}$' AND id <> 'default'), CONSTRAINT "pk_plans" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_plans_offered_created_at" ON "plans" ("created_at", "id") WHERE archived_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_plans_offered_created_at"`);
    await queryRunner.query(`DROP TABLE "plans"`);
  }
}
