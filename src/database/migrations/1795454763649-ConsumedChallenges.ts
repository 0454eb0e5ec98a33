import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login challenges are no longer stored when handed out (a public route that wrote a row per call), only when
 * consumed. Challenges outstanding during the upgrade are dropped: their wallets ask for a new one.
 */
export class ConsumedChallenges1795454763649 implements MigrationInterface {
  name = 'ConsumedChallenges1795454763649';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "consumed_challenges" (
                "nonce" character varying(64) NOT NULL,
                "address" character varying(42) NOT NULL,
                "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "consumed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "ck_consumed_challenges_address_lowercase" CHECK (address = lower(address)),
                CONSTRAINT "PK_59385b880cd3238d256c3a9d643" PRIMARY KEY ("nonce")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_consumed_challenges_expires_at" ON "consumed_challenges" ("expires_at")
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_consumed_challenges_address_issued_at" ON "consumed_challenges" ("address", "issued_at")
        `);
    await queryRunner.query(`DROP TABLE "auth_challenges"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "auth_challenges" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "address" character varying(42) NOT NULL,
                "nonce" character varying(64) NOT NULL,
                "message" text NOT NULL,
                "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "consumed_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "ck_auth_challenges_address_lowercase" CHECK (address = lower(address)),
                CONSTRAINT "PK_6993bc9c45bbf5948e4118de560" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`CREATE UNIQUE INDEX "ux_auth_challenges_nonce" ON "auth_challenges" ("nonce")`);
    await queryRunner.query(
      `CREATE INDEX "ix_auth_challenges_expires_at" ON "auth_challenges" ("expires_at")`,
    );
    await queryRunner.query(`
            CREATE INDEX "ix_auth_challenges_outstanding" ON "auth_challenges" ("address", "created_at")
            WHERE consumed_at IS NULL
        `);
    await queryRunner.query(`DROP INDEX "public"."ix_consumed_challenges_address_issued_at"`);
    await queryRunner.query(`DROP INDEX "public"."ix_consumed_challenges_expires_at"`);
    await queryRunner.query(`DROP TABLE "consumed_challenges"`);
  }
}
