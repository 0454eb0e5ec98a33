import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1795315300000 implements MigrationInterface {
  name = 'Webhooks1795315300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "webhook_endpoints" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "owner_address" character varying(42) NOT NULL,
                "url" character varying(2048) NOT NULL,
                "events" text array NOT NULL,
                "enabled" boolean NOT NULL DEFAULT true,
                "description" character varying(500),
                "secret" character varying(100) NOT NULL,
                "previous_secret" character varying(100),
                "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "failing_since" TIMESTAMP WITH TIME ZONE,
                "disabled_reason" character varying(16),
                CONSTRAINT "ck_webhook_endpoints_previous_secret" CHECK (
                    (previous_secret IS NULL) = (previous_secret_expires_at IS NULL)
                ),
                CONSTRAINT "ck_webhook_endpoints_disabled_reason" CHECK (disabled_reason IN ('gone', 'failing')),
                CONSTRAINT "ck_webhook_endpoints_events_not_empty" CHECK (cardinality(events) > 0),
                CONSTRAINT "ck_webhook_endpoints_owner_lowercase" CHECK (owner_address = lower(owner_address)),
                CONSTRAINT "pk_webhook_endpoints" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "ux_webhook_endpoints_owner_url" ON "webhook_endpoints" ("owner_address", "url")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_deliveries" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "endpoint_id" uuid NOT NULL,
                "event_id" uuid NOT NULL,
                "event_type" character varying(64) NOT NULL,
                "payload" text NOT NULL,
                "status" character varying(16) NOT NULL DEFAULT 'pending',
                "attempt_count" integer NOT NULL DEFAULT '0',
                "next_attempt_at" TIMESTAMP WITH TIME ZONE,
                "locked_until" TIMESTAMP WITH TIME ZONE,
                "last_status_code" integer,
                "last_error" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "ck_webhook_deliveries_status" CHECK (status IN ('pending', 'succeeded', 'failed')),
                CONSTRAINT "pk_webhook_deliveries" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_webhook_deliveries_pending_next_attempt_at" ON "webhook_deliveries" ("next_attempt_at")
            WHERE status = 'pending'
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_webhook_deliveries_event_id" ON "webhook_deliveries" ("event_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "ux_webhook_deliveries_endpoint_event" ON "webhook_deliveries" ("endpoint_id", "event_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_attempts" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "delivery_id" uuid NOT NULL,
                "endpoint_id" uuid NOT NULL,
                "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "success" boolean NOT NULL,
                "status_code" integer,
                "duration_ms" integer NOT NULL,
                "error" text,
                "response_body" text,
                CONSTRAINT "pk_webhook_attempts" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_webhook_attempts_delivery_id" ON "webhook_attempts" ("delivery_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_webhook_attempts_endpoint_attempted_at" ON "webhook_attempts" ("endpoint_id", "attempted_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries"
            ADD CONSTRAINT "fk_webhook_deliveries_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries"
            ADD CONSTRAINT "fk_webhook_deliveries_event" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_attempts"
            ADD CONSTRAINT "fk_webhook_attempts_delivery" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_attempts"
            ADD CONSTRAINT "fk_webhook_attempts_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "webhook_attempts" DROP CONSTRAINT "fk_webhook_attempts_endpoint"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_attempts" DROP CONSTRAINT "fk_webhook_attempts_delivery"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "fk_webhook_deliveries_event"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "fk_webhook_deliveries_endpoint"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_webhook_attempts_endpoint_attempted_at"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_webhook_attempts_delivery_id"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_attempts"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ux_webhook_deliveries_endpoint_event"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_webhook_deliveries_event_id"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_webhook_deliveries_pending_next_attempt_at"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_deliveries"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ux_webhook_endpoints_owner_url"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_endpoints"
        `);
  }
}
