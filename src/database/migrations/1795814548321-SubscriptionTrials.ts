import { MigrationInterface, QueryRunner } from 'typeorm';

/** Trials: one per wallet and plan, ever (subscription_trials), and a trial within its period. */
export class SubscriptionTrials1795814548321 implements MigrationInterface {
  name = 'SubscriptionTrials1795814548321';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "subscription_trials" ("address" character varying(42) NOT NULL, "plan_id" character varying(32) NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "trial_end" TIMESTAMP WITH TIME ZONE NOT NULL, "reminded_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "ck_subscription_trials_period" CHECK (trial_end > started_at), CONSTRAINT "ck_subscription_trials_address_lowercase" CHECK (address = lower(address)), CONSTRAINT "pk_subscription_trials" PRIMARY KEY ("address", "plan_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_subscription_trials_reminder_pending" ON "subscription_trials" ("trial_end") WHERE reminded_at IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscriptions" ADD CONSTRAINT "ck_subscriptions_trial_end" CHECK (trial_end IS NULL OR (trial_end >= current_period_start AND trial_end <= current_period_end))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP CONSTRAINT "ck_subscriptions_trial_end"`);
    await queryRunner.query(`DROP INDEX "public"."ix_subscription_trials_reminder_pending"`);
    await queryRunner.query(`DROP TABLE "subscription_trials"`);
  }
}
