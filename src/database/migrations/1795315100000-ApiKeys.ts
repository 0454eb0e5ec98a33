import { MigrationInterface, QueryRunner } from 'typeorm';

export class ApiKeys1795315100000 implements MigrationInterface {
  name = 'ApiKeys1795315100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "api_keys" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "owner_address" character varying(42) NOT NULL,
                "label" character varying(100) NOT NULL,
                "scopes" text array NOT NULL,
                "key_digest" bytea NOT NULL,
                "prefix" character varying(10) NOT NULL,
                "last4" character varying(4) NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "last_used_at" TIMESTAMP WITH TIME ZONE,
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "ck_api_keys_scopes_not_empty" CHECK (cardinality(scopes) > 0),
                CONSTRAINT "ck_api_keys_owner_lowercase" CHECK (owner_address = lower(owner_address)),
                CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "ux_api_keys_key_digest" ON "api_keys" ("key_digest")
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_api_keys_owner_created_at" ON "api_keys" ("owner_address", "created_at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."ix_api_keys_owner_created_at"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."ux_api_keys_key_digest"
        `);
    await queryRunner.query(`
            DROP TABLE "api_keys"
        `);
  }
}
