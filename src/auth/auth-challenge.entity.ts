import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A login challenge: the server-built EIP-4361 message a wallet must sign, single use, short-lived. */
@Entity({ name: 'auth_challenges' })
@Index('ix_auth_challenges_outstanding', ['address', 'createdAt'], { where: 'consumed_at IS NULL' })
@Index('ix_auth_challenges_expires_at', ['expiresAt'])
@Check('ck_auth_challenges_address_lowercase', `address = lower(address)`)
export class AuthChallengeEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Lowercase wallet address. */
  @Column({ type: 'varchar', length: 42 })
  address: string;

  @Index('ux_auth_challenges_nonce', { unique: true })
  @Column({ type: 'varchar', length: 64 })
  nonce: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
