import { MigrationInterface, QueryRunner } from 'typeorm';

/** The keeper's charges (one row per mandate and period, with its signed transaction) and its keys' nonces. */
export class KeeperCharges1795814290409 implements MigrationInterface {
  name = 'KeeperCharges1795814290409';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "keeper_charges" ("mandate_hash" character varying(66) NOT NULL, "period_index" numeric(78,0) NOT NULL, "state" character varying(16) NOT NULL, "claim_token" uuid NOT NULL, "claimed_until" TIMESTAMP WITH TIME ZONE NOT NULL, "chain_id" bigint NOT NULL, "keeper" character varying(42) NOT NULL, "nonce" bigint, "tx_hash" character varying(66), "raw_tx" text, "max_fee_per_gas" numeric(78,0), "max_priority_fee_per_gas" numeric(78,0), "replaced_tx_hashes" character varying(66) array NOT NULL DEFAULT '{}', "sent_at" TIMESTAMP WITH TIME ZONE, "resends" integer NOT NULL DEFAULT '0', "transfer_tx_hash" character varying(66), "transfer_log_index" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ck_keeper_charges_confirmed" CHECK ((state = 'confirmed') = (transfer_tx_hash IS NOT NULL AND transfer_log_index IS NOT NULL)), CONSTRAINT "ck_keeper_charges_sent" CHECK (state = 'claimed' OR (nonce IS NOT NULL AND tx_hash IS NOT NULL AND raw_tx IS NOT NULL AND sent_at IS NOT NULL AND max_fee_per_gas IS NOT NULL AND max_priority_fee_per_gas IS NOT NULL)), CONSTRAINT "ck_keeper_charges_period_index" CHECK (period_index >= 0), CONSTRAINT "ck_keeper_charges_state" CHECK (state IN ('claimed', 'sent', 'confirmed', 'reverted')), CONSTRAINT "pk_keeper_charges" PRIMARY KEY ("mandate_hash", "period_index"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_keeper_charges_waiting" ON "keeper_charges" ("created_at") WHERE state IN ('claimed', 'sent')`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_keeper_charges_nonce" ON "keeper_charges" ("chain_id", "keeper", "nonce") WHERE nonce IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "keeper_nonces" ("chain_id" bigint NOT NULL, "address" character varying(42) NOT NULL, "next_nonce" bigint NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ck_keeper_nonces_next_nonce" CHECK (next_nonce >= 0), CONSTRAINT "pk_keeper_nonces" PRIMARY KEY ("chain_id", "address"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "keeper_nonces"`);
    await queryRunner.query(`DROP INDEX "public"."ux_keeper_charges_nonce"`);
    await queryRunner.query(`DROP INDEX "public"."ix_keeper_charges_waiting"`);
    await queryRunner.query(`DROP TABLE "keeper_charges"`);
  }
}
