import { MigrationInterface, QueryRunner } from 'typeorm';

/** Subscriptions on plans: the plan, the end of a trial, a scheduled change of plan. */
export class SubscriptionPlans1795804010898 implements MigrationInterface {
  name = 'SubscriptionPlans1795804010898';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "subscriptions" ADD "plan_id" character varying(32) NOT NULL DEFAULT 'default'`,
    );
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD "trial_end" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD "pending_plan_id" character varying(32)`);
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD "pending_plan_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "ix_subscriptions_pending_plan_id" ON "subscriptions" ("pending_plan_id") WHERE pending_plan_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_subscriptions_plan_id" ON "subscriptions" ("plan_id") WHERE plan_id <> 'default'`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscriptions" ADD CONSTRAINT "ck_subscriptions_pending_plan" CHECK ((pending_plan_id IS NULL) = (pending_plan_at IS NULL))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP CONSTRAINT "ck_subscriptions_pending_plan"`);
    await queryRunner.query(`DROP INDEX "public"."ix_subscriptions_plan_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_subscriptions_pending_plan_id"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP COLUMN "pending_plan_at"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP COLUMN "pending_plan_id"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP COLUMN "trial_end"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP COLUMN "plan_id"`);
  }
}
