import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments behind renew: on-chain payments (chain, token, payer, transaction, log), each transfer credited once
 * (ux_payments_transfer), amounts up to a uint256, and every renewal linked to the payment that bought it.
 */
export class Payments1795455078307 implements MigrationInterface {
  name = 'Payments1795455078307';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Altered in place, not dropped and re-added: the recorded amounts are kept.
    await queryRunner.query(`
            ALTER TABLE "payments" ALTER COLUMN "amount_minor" TYPE numeric(78,0)
        `);
    await queryRunner.query(`
            ALTER TABLE "payments" DROP CONSTRAINT "ck_payments_currency"
        `);
    await queryRunner.query(`
            ALTER TABLE "payments"
                ADD "chain_id" bigint,
                ADD "token" character varying(42),
                ADD "payer" character varying(42),
                ADD "tx_hash" character varying(66),
                ADD "log_index" integer
        `);
    // The free gateway was called the zero-amount gateway before.
    await queryRunner.query(`
            UPDATE "payments" SET "gateway" = 'free' WHERE "gateway" = 'zero_amount'
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "ux_payments_transfer" ON "payments" ("chain_id", "tx_hash", "log_index")
        `);
    await queryRunner.query(`
            ALTER TABLE "payments"
            ADD CONSTRAINT "ck_payments_transfer" CHECK (
                    (
                        chain_id IS NULL
                        AND token IS NULL
                        AND payer IS NULL
                        AND tx_hash IS NULL
                        AND log_index IS NULL
                    )
                    OR (
                        chain_id IS NOT NULL
                        AND token IS NOT NULL
                        AND payer IS NOT NULL
                        AND tx_hash IS NOT NULL
                        AND log_index IS NOT NULL
                    )
                )
        `);
    await queryRunner.query(`
            ALTER TABLE "payments"
            ADD CONSTRAINT "ck_payments_priced" CHECK (
                    amount_minor = 0
                    OR currency IS NOT NULL
                    OR token IS NOT NULL
                )
        `);
    await queryRunner.query(`
            ALTER TABLE "subscription_events" ADD "payment_id" uuid
        `);
    await queryRunner.query(`
            ALTER TABLE "subscription_events"
            ADD CONSTRAINT "fk_subscription_events_payment" FOREIGN KEY ("payment_id") REFERENCES "payments"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "subscription_events" DROP CONSTRAINT "fk_subscription_events_payment"
        `);
    await queryRunner.query(`
            ALTER TABLE "subscription_events" DROP COLUMN "payment_id"
        `);
    await queryRunner.query(`
            ALTER TABLE "payments" DROP CONSTRAINT "ck_payments_priced"
        `);
    await queryRunner.query(`
            ALTER TABLE "payments" DROP CONSTRAINT "ck_payments_transfer"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ux_payments_transfer"
        `);
    await queryRunner.query(`
            UPDATE "payments" SET "gateway" = 'zero_amount' WHERE "gateway" = 'free'
        `);
    await queryRunner.query(`
            ALTER TABLE "payments"
                DROP COLUMN "log_index",
                DROP COLUMN "tx_hash",
                DROP COLUMN "payer",
                DROP COLUMN "token",
                DROP COLUMN "chain_id"
        `);
    await queryRunner.query(`
            ALTER TABLE "payments"
            ADD CONSTRAINT "ck_payments_currency" CHECK (
                    currency IS NOT NULL
                    OR amount_minor = 0
                )
        `);
    // Fails on an amount above a bigint, rather than losing it.
    await queryRunner.query(`
            ALTER TABLE "payments" ALTER COLUMN "amount_minor" TYPE bigint
        `);
  }
}
