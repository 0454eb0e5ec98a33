import { MigrationInterface, QueryRunner } from 'typeorm';

/** Pending retries in due order: the delivery queue claims due retries before first attempts. */
export class WebhookRetryIndex1795600000000 implements MigrationInterface {
  name = 'WebhookRetryIndex1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_pending_retry_next_attempt_at" ON "webhook_deliveries" ("next_attempt_at") WHERE status = 'pending' AND attempt_count > 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_pending_retry_next_attempt_at"`);
  }
}
