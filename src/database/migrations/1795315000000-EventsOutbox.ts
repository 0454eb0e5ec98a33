import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventsOutbox1795315000000 implements MigrationInterface {
  name = 'EventsOutbox1795315000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "events" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "type" character varying(64) NOT NULL,
                "address" character varying(42) NOT NULL,
                "data" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_40731c7151fe4be3116e45ddf73" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "ix_events_address_created_at" ON "events" ("address", "created_at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."ix_events_address_created_at"
        `);
    await queryRunner.query(`
            DROP TABLE "events"
        `);
  }
}
