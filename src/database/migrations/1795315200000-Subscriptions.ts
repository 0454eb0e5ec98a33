import { MigrationInterface, QueryRunner } from 'typeorm';

export class Subscriptions1795315200000 implements MigrationInterface {
  name = 'Subscriptions1795315200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "idempotency_keys" (
                "principal" character varying(100) NOT NULL,
                "idempotency_key" character varying(255) NOT NULL,
                "fingerprint" character varying(64) NOT NULL,
                "status" character varying(16) NOT NULL,
                "lease" uuid NOT NULL,
                "started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "completed_at" TIMESTAMP WITH TIME ZONE,
                "response_status" smallint,
                "response_body" jsonb,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "ck_idempotency_keys_response" CHECK (
                    (status = 'completed') = (
                        response_status IS NOT NULL
                        AND response_body IS NOT NULL
                    )
                ),
                CONSTRAINT "ck_idempotency_keys_status" CHECK (status IN ('in_progress', 'completed')),
                CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("principal", "idempotency_key")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_idempotency_keys_expires_at" ON "idempotency_keys" ("expires_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "subscriptions" (
                "address" character varying(42) NOT NULL,
                "current_period_start" TIMESTAMP WITH TIME ZONE NOT NULL,
                "current_period_end" TIMESTAMP WITH TIME ZONE NOT NULL,
                "cancel_at_period_end" boolean NOT NULL DEFAULT false,
                "canceled_at" TIMESTAMP WITH TIME ZONE,
                "expiry_recorded_for" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "ck_subscriptions_period" CHECK (current_period_end >= current_period_start),
                CONSTRAINT "ck_subscriptions_address_lowercase" CHECK (address = lower(address)),
                CONSTRAINT "pk_subscriptions" PRIMARY KEY ("address")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_subscriptions_expiry_pending" ON "subscriptions" ("current_period_end")
            WHERE expiry_recorded_for IS DISTINCT FROM current_period_end
        `);
    await queryRunner.query(`
            CREATE TABLE "payments" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "address" character varying(42) NOT NULL,
                "gateway" character varying(32) NOT NULL,
                "amount_minor" bigint NOT NULL,
                "currency" character varying(16),
                "period_start" TIMESTAMP WITH TIME ZONE NOT NULL,
                "period_end" TIMESTAMP WITH TIME ZONE NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "ck_payments_currency" CHECK (
                    currency IS NOT NULL
                    OR amount_minor = 0
                ),
                CONSTRAINT "ck_payments_amount_minor" CHECK (amount_minor >= 0),
                CONSTRAINT "pk_payments" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_payments_address_created_at" ON "payments" ("address", "created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "subscription_events" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "seq" BIGSERIAL NOT NULL,
                "address" character varying(42) NOT NULL,
                "type" character varying(16) NOT NULL,
                "at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "actor" character varying(42) NOT NULL,
                "actor_key_id" character varying(64),
                "previous_period_end" TIMESTAMP WITH TIME ZONE,
                "current_period_end" TIMESTAMP WITH TIME ZONE NOT NULL,
                "idempotency_key" character varying(255),
                CONSTRAINT "ck_subscription_events_actor" CHECK (
                    actor = 'system'
                    OR actor ~ '^0x[0-9a-f]{40}$'
                ),
                CONSTRAINT "ck_subscription_events_type" CHECK (type IN ('renewed', 'canceled', 'expired')),
                CONSTRAINT "pk_subscription_events" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_subscription_events_address_at" ON "subscription_events" ("address", "at", "seq")
        `);
    await queryRunner.query(`
            ALTER TABLE "payments"
            ADD CONSTRAINT "fk_payments_address" FOREIGN KEY ("address") REFERENCES "subscriptions"("address") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "subscription_events"
            ADD CONSTRAINT "fk_subscription_events_address" FOREIGN KEY ("address") REFERENCES "subscriptions"("address") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "subscription_events" DROP CONSTRAINT "fk_subscription_events_address"
        `);
    await queryRunner.query(`
            ALTER TABLE "payments" DROP CONSTRAINT "fk_payments_address"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_subscription_events_address_at"
        `);
    await queryRunner.query(`
            DROP TABLE "subscription_events"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_payments_address_created_at"
        `);
    await queryRunner.query(`
            DROP TABLE "payments"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_subscriptions_expiry_pending"
        `);
    await queryRunner.query(`
            DROP TABLE "subscriptions"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_idempotency_keys_expires_at"
        `);
    await queryRunner.query(`
            DROP TABLE "idempotency_keys"
        `);
  }
}
