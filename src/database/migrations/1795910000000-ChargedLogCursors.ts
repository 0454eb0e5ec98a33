import { MigrationInterface, QueryRunner } from 'typeorm';

/** The Charged-log follower's cursor: per chain and charging contract, the first block not read yet. */
export class ChargedLogCursors1795910000000 implements MigrationInterface {
  name = 'ChargedLogCursors1795910000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "auto_renew_log_cursors" ("chain_id" bigint NOT NULL, "charger" character varying(42) NOT NULL, "next_block" bigint NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ck_auto_renew_log_cursors_next_block" CHECK (next_block >= 0), CONSTRAINT "pk_auto_renew_log_cursors" PRIMARY KEY ("chain_id", "charger"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "auto_renew_log_cursors"`);
  }
}
