import { MigrationInterface, QueryRunner } from 'typeorm';

/** The process holding an in-progress idempotency key, so that a retry can take the key over once it is gone. */
export class IdempotencyKeyOwner1795810000000 implements MigrationInterface {
  name = 'IdempotencyKeyOwner1795810000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "owner_instance" uuid`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "owner_instance"`);
  }
}
