import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** Why the service switched a configuration off by itself (an owner's own `enabled: false` leaves it null). */
export const WEBHOOK_DISABLED_REASONS = ['gone', 'failing'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

/**
 * A webhook configuration: where a wallet wants its events delivered and the secret that signs them. Private to
 * the wallet that created it.
 */
@Entity({ name: 'webhook_endpoints' })
@Index('ux_webhook_endpoints_owner_url', ['ownerAddress', 'url'], { unique: true })
@Check('ck_webhook_endpoints_owner_lowercase', `owner_address = lower(owner_address)`)
@Check('ck_webhook_endpoints_events_not_empty', `cardinality(events) > 0`)
@Check('ck_webhook_endpoints_disabled_reason', `disabled_reason IN ('gone', 'failing')`)
@Check(
  'ck_webhook_endpoints_previous_secret',
  `(previous_secret IS NULL) = (previous_secret_expires_at IS NULL)`,
)
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_webhook_endpoints' })
  id: string;

  /** Lowercase address of the wallet that owns the configuration. */
  @Column({ name: 'owner_address', type: 'varchar', length: 42 })
  ownerAddress: string;

  /** Normalised (WHATWG) form of the URL, so that two spellings of one URL count as the same configuration. */
  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** Event types, or `*` for all of them. */
  @Column({ type: 'text', array: true })
  events: string[];

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** `whsec_…`; kept in clear because signing needs the key itself. */
  @Column({ type: 'varchar', length: 100 })
  secret: string;

  /** The secret a rotation replaced; it keeps signing until `previous_secret_expires_at`. */
  @Column({ name: 'previous_secret', type: 'varchar', length: 100, nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Start of the current run of failed attempts; cleared by the next success. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 16, nullable: true })
  disabledReason: WebhookDisabledReason | null;
}
