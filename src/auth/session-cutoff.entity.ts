import { Check, Column, Entity, Generated, PrimaryColumn } from 'typeorm';

/**
 * "Sign out everywhere": every session token of the wallet whose `gen` claim is below `generation` is refused.
 * Kept until every token it could refuse has expired anyway (JWT_TTL_SECONDS after `notBefore`).
 */
@Entity({ name: 'session_cutoffs' })
@Check('ck_session_cutoffs_address_lowercase', `address = lower(address)`)
export class SessionCutoffEntity {
  /** Lowercase wallet address. */
  @PrimaryColumn({ type: 'varchar', length: 42 })
  address: string;

  /** When the wallet last signed out everywhere (the purge's clock; tokens without `gen` are checked against it). */
  @Column({ name: 'not_before', type: 'timestamptz' })
  notBefore: Date;

  /**
   * Drawn from one sequence for every wallet, anew at each "sign out everywhere": a row purged and recorded again
   * still gets a generation above every token issued before, so generations never repeat. pg returns it as a string.
   */
  @Column({ type: 'bigint' })
  @Generated('increment')
  generation: string;
}
