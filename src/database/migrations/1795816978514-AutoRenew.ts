import { MigrationInterface, QueryRunner } from 'typeorm';

/** Automatic renewal's mandates; a subscription's grace after a failed charge, and its `payment_failed` history. */
export class AutoRenew1795816978514 implements MigrationInterface {
  name = 'AutoRenew1795816978514';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "auto_renew_mandates" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "address" character varying(42) NOT NULL, "status" character varying(16) NOT NULL, "gateway" character varying(16) NOT NULL, "chain_id" integer, "charger" character varying(42), "token" character varying(42), "payee" character varying(42), "amount_minor" numeric(78,0) NOT NULL, "period_seconds" integer NOT NULL, "start_at" TIMESTAMP WITH TIME ZONE NOT NULL, "periods" integer NOT NULL, "salt" character varying(66), "mandate_hash" character varying(66), "signature" text, "charged_through" integer, "next_charge_at" TIMESTAMP WITH TIME ZONE NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "failure_reason" character varying(32), "failure_message" text, "failed_at" TIMESTAMP WITH TIME ZONE, "allowance_shortfall" numeric(78,0) NOT NULL DEFAULT '0', "ended_reason" character varying(32), "lease_until" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ck_auto_renew_mandates_signed" CHECK ((gateway = 'erc20') = (mandate_hash IS NOT NULL AND signature IS NOT NULL AND salt IS NOT NULL AND chain_id IS NOT NULL AND charger IS NOT NULL AND token IS NOT NULL AND payee IS NOT NULL)), CONSTRAINT "ck_auto_renew_mandates_terms" CHECK (amount_minor >= 0 AND period_seconds > 0 AND periods > 0), CONSTRAINT "ck_auto_renew_mandates_gateway" CHECK (gateway IN ('free', 'erc20')), CONSTRAINT "ck_auto_renew_mandates_status" CHECK (status IN ('enabled', 'disabled', 'ended')), CONSTRAINT "ck_auto_renew_mandates_address_lowercase" CHECK (address = lower(address)), CONSTRAINT "pk_auto_renew_mandates" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_auto_renew_mandates_due" ON "auto_renew_mandates" ("next_charge_at") WHERE status = 'enabled'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_auto_renew_mandates_hash" ON "auto_renew_mandates" ("mandate_hash") WHERE mandate_hash IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_auto_renew_mandates_enabled_address" ON "auto_renew_mandates" ("address") WHERE status = 'enabled'`,
    );
    await queryRunner.query(`ALTER TABLE "subscriptions" ADD "grace_until" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `ALTER TABLE "subscriptions" ADD CONSTRAINT "ck_subscriptions_grace" CHECK (grace_until IS NULL OR grace_until >= current_period_end)`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscription_events" DROP CONSTRAINT "ck_subscription_events_type"`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscription_events" ADD CONSTRAINT "ck_subscription_events_type" CHECK (type IN ('renewed', 'payment_failed', 'canceled', 'expired'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "subscription_events" DROP CONSTRAINT "ck_subscription_events_type"`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscription_events" ADD CONSTRAINT "ck_subscription_events_type" CHECK (type IN ('renewed', 'canceled', 'expired'))`,
    );
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP CONSTRAINT "ck_subscriptions_grace"`);
    await queryRunner.query(`ALTER TABLE "subscriptions" DROP COLUMN "grace_until"`);
    await queryRunner.query(`DROP INDEX "public"."ux_auto_renew_mandates_enabled_address"`);
    await queryRunner.query(`DROP INDEX "public"."ux_auto_renew_mandates_hash"`);
    await queryRunner.query(`DROP INDEX "public"."ix_auto_renew_mandates_due"`);
    await queryRunner.query(`DROP TABLE "auto_renew_mandates"`);
  }
}
