import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * "Sign out everywhere": every session token of the wallet issued before `notBefore` is refused. Kept until every
 * such token has expired anyway (JWT_TTL_SECONDS after `notBefore`).
 */
@Entity({ name: 'session_cutoffs' })
@Check('ck_session_cutoffs_address_lowercase', `address = lower(address)`)
export class SessionCutoffEntity {
  /** Lowercase wallet address. */
  @PrimaryColumn({ type: 'varchar', length: 42 })
  address: string;

  @Column({ name: 'not_before', type: 'timestamptz' })
  notBefore: Date;
}
