import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A login challenge that has been used. Challenges themselves are never stored (see login-challenges.ts): only
 * their consumption, kept until the challenge would have expired anyway, so that each is single use.
 */
@Entity({ name: 'consumed_challenges' })
@Index('ix_consumed_challenges_address_issued_at', ['address', 'issuedAt'])
@Index('ix_consumed_challenges_expires_at', ['expiresAt'])
@Check('ck_consumed_challenges_address_lowercase', `address = lower(address)`)
export class ConsumedChallengeEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  nonce: string;

  /** Lowercase wallet address. */
  @Column({ type: 'varchar', length: 42 })
  address: string;

  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'consumed_at', type: 'timestamptz' })
  consumedAt: Date;
}
