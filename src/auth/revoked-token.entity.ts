import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A JWT revoked by logout, kept until the token would have expired anyway. */
@Entity({ name: 'revoked_tokens' })
export class RevokedTokenEntity {
  @PrimaryColumn({ type: 'uuid' })
  jti: string;

  @Index('ix_revoked_tokens_expires_at')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', default: () => 'now()' })
  revokedAt: Date;
}
