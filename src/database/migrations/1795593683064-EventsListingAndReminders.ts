import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventsListingAndReminders1795593683064 implements MigrationInterface {
  name = 'EventsListingAndReminders1795593683064';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_events_address_created_at"`);
    await queryRunner.query(
      `CREATE TABLE "subscription_reminders" ("address" character varying(42) NOT NULL, "period_end" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_subscription_reminders" PRIMARY KEY ("address", "period_end"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_subscription_reminders_period_end" ON "subscription_reminders" ("period_end") `,
    );
    await queryRunner.query(`CREATE INDEX "ix_events_created_at_id" ON "events" ("created_at", "id") `);
    await queryRunner.query(
      `CREATE INDEX "ix_events_address_created_at_id" ON "events" ("address", "created_at", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "subscription_reminders" ADD CONSTRAINT "fk_subscription_reminders_address" FOREIGN KEY ("address") REFERENCES "subscriptions"("address") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "subscription_reminders" DROP CONSTRAINT "fk_subscription_reminders_address"`,
    );
    await queryRunner.query(`DROP INDEX "public"."ix_events_address_created_at_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_events_created_at_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_subscription_reminders_period_end"`);
    await queryRunner.query(`DROP TABLE "subscription_reminders"`);
    await queryRunner.query(
      `CREATE INDEX "ix_events_address_created_at" ON "events" ("address", "created_at") `,
    );
  }
}
