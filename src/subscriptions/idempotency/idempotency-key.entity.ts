import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One `Idempotency-Key` of one principal: claimed `in_progress` before the change runs, `completed` (with the
 * response to replay) in the change's own transaction. Kept until `expires_at` (24 h).
 */
@Entity({ name: 'idempotency_keys' })
@Index('ix_idempotency_keys_expires_at', ['expiresAt'])
@Check('ck_idempotency_keys_status', `status IN ('in_progress', 'completed')`)
@Check(
  'ck_idempotency_keys_response',
  `(status = 'completed') = (response_status IS NOT NULL AND response_body IS NOT NULL)`,
)
export class IdempotencyKeyEntity {
  /** Whose key it is: `wallet:<lowercase address>` for a session, `api_key:<key id>` for an API key. */
  @PrimaryColumn({ type: 'varchar', length: 100, primaryKeyConstraintName: 'pk_idempotency_keys' })
  principal: string;

  @PrimaryColumn({
    name: 'idempotency_key',
    type: 'varchar',
    length: 255,
    primaryKeyConstraintName: 'pk_idempotency_keys',
  })
  idempotencyKey: string;

  /** SHA-256 (hex) of the operation and its normalised body: the same key with another request is refused. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ type: 'varchar', length: 16 })
  status: 'in_progress' | 'completed';

  /** Identifies the attempt holding the key; completing requires it, so a stale attempt cannot complete. */
  @Column({ type: 'uuid' })
  lease: string;

  /**
   * The process running the current attempt (`DatabaseSession.instanceId`), when it had its presence lock: once that
   * lock is free the process is gone, and a retry takes the key over at once. Null: only the time rule applies.
   */
  @Column({ name: 'owner_instance', type: 'uuid', nullable: true })
  ownerInstance: string | null;

  /** When the current attempt claimed the key; an attempt silent for too long is taken over. */
  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'response_status', type: 'smallint', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody: unknown;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
