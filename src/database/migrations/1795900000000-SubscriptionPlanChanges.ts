import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The history of plan changes: their entry types, and the plans an entry changed from and to. After AutoRenew, whose
 * `payment_failed` entry type it keeps.
 */
export class SubscriptionPlanChanges1795900000000 implements MigrationInterface {
  name = 'SubscriptionPlanChanges1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "subscription_events" DROP CONSTRAINT "ck_subscription_events_type"`,
    );
    await queryRunner.query(`ALTER TABLE "subscription_events" ADD "previous_plan_id" character varying(32)`);
    await queryRunner.query(`ALTER TABLE "subscription_events" ADD "plan_id" character varying(32)`);
    await queryRunner.query(
      `ALTER TABLE "subscription_events" ADD CONSTRAINT "ck_subscription_events_type" CHECK (type IN ('renewed', 'payment_failed', 'canceled', 'expired', 'plan_changed', 'plan_scheduled', 'plan_unscheduled'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "subscription_events" DROP CONSTRAINT "ck_subscription_events_type"`,
    );
    await queryRunner.query(`ALTER TABLE "subscription_events" DROP COLUMN "plan_id"`);
    await queryRunner.query(`ALTER TABLE "subscription_events" DROP COLUMN "previous_plan_id"`);
    await queryRunner.query(
      `ALTER TABLE "subscription_events" ADD CONSTRAINT "ck_subscription_events_type" CHECK (type IN ('renewed', 'payment_failed', 'canceled', 'expired'))`,
    );
  }
}
