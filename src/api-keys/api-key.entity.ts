import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Scope } from '../auth/scopes.js';

/**
 * An API key. The key itself is never stored: only its SHA-256 digest, under a unique index, so verifying a key
 * is one index lookup whatever the number of keys, and a database leak yields no usable key.
 */
@Entity({ name: 'api_keys' })
@Index('ix_api_keys_owner_created_at', ['ownerAddress', 'createdAt'])
@Check('ck_api_keys_owner_lowercase', `owner_address = lower(owner_address)`)
@Check('ck_api_keys_scopes_not_empty', `cardinality(scopes) > 0`)
@Check('ck_api_keys_one_creator', `created_by_key_id IS NULL OR created_by_session IS NULL`)
@Index('ix_api_keys_expiry_pending', ['expiresAt'], {
  where: 'expires_at IS NOT NULL AND expired_notified_at IS NULL AND revoked_at IS NULL',
})
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Lowercase address of the wallet that created the key; the key acts for it. */
  @Column({ name: 'owner_address', type: 'varchar', length: 42 })
  ownerAddress: string;

  @Column({ type: 'varchar', length: 100 })
  label: string;

  @Column({ type: 'text', array: true })
  scopes: Scope[];

  @Index('ux_api_keys_key_digest', { unique: true })
  @Column({ name: 'key_digest', type: 'bytea' })
  keyDigest: Buffer;

  /** First 10 characters of the key, for display. */
  @Column({ type: 'varchar', length: 10 })
  prefix: string;

  @Column({ type: 'varchar', length: 4 })
  last4: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /**
   * The API key that created this one (revoking it revokes this one too), or null. Indexed for the revocation's
   * walk down the tree of keys made by keys.
   */
  @Index('ix_api_keys_created_by_key_id')
  @Column({ name: 'created_by_key_id', type: 'uuid', nullable: true })
  createdByKeyId: string | null;

  /** The id (`jti`) of the session token that created this key, or null. Both null: created before this was kept. */
  @Column({ name: 'created_by_session', type: 'uuid', nullable: true })
  createdBySession: string | null;

  /** When the key stops working (401 `api_key_expired`), or null: it never expires. Fixed at creation. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** When `api_key.expiring` was recorded for it: set once, by the statement that claims the notice. */
  @Column({ name: 'expiring_notified_at', type: 'timestamptz', nullable: true })
  expiringNotifiedAt: Date | null;

  /** When `api_key.expired` was recorded for it: set once, by the statement that claims the notice. */
  @Column({ name: 'expired_notified_at', type: 'timestamptz', nullable: true })
  expiredNotifiedAt: Date | null;
}
