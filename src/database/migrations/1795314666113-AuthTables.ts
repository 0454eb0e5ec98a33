import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthTables1795314666113 implements MigrationInterface {
  name = 'AuthTables1795314666113';

  public async up(queryRunner: QueryRunner): Promise<void> {
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
    await queryRunner.query(`
            CREATE UNIQUE INDEX "ux_auth_challenges_nonce" ON "auth_challenges" ("nonce")
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_auth_challenges_expires_at" ON "auth_challenges" ("expires_at")
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_auth_challenges_outstanding" ON "auth_challenges" ("address", "created_at")
            WHERE consumed_at IS NULL
        `);
    await queryRunner.query(`
            CREATE TABLE "revoked_tokens" (
                "jti" uuid NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "revoked_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_b18aa48269f87cafba8c6310624" PRIMARY KEY ("jti")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_revoked_tokens_expires_at" ON "revoked_tokens" ("expires_at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."ix_revoked_tokens_expires_at"
        `);
    await queryRunner.query(`
            DROP TABLE "revoked_tokens"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_auth_challenges_outstanding"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ix_auth_challenges_expires_at"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ux_auth_challenges_nonce"
        `);
    await queryRunner.query(`
            DROP TABLE "auth_challenges"
        `);
  }
}
