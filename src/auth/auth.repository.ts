import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { raw, sql } from '../database/sql.js';
import { ConsumedChallengeEntity } from './consumed-challenge.entity.js';
import { SessionCutoffEntity } from './session-cutoff.entity.js';

export type ConsumedChallenge = Pick<ConsumedChallengeEntity, 'address' | 'nonce' | 'issuedAt' | 'expiresAt'>;

/** A wallet's "sign out everywhere" as a session check reads it. */
export type SessionCutoff = Pick<SessionCutoffEntity, 'notBefore' | 'generation'>;

const ISSUED_AT = raw(selectList(ConsumedChallengeEntity, ['issuedAt']));
const CUTOFF = raw(selectList(SessionCutoffEntity, ['notBefore', 'generation']));

/** Owns the queries of consumed login challenges, revoked tokens and session cutoffs. */
@Injectable()
export class AuthRepository {
  constructor(private readonly db: Database) {}

  /** How many of the address's challenges of each of these slots have been consumed (absent: none). */
  async consumedPerSlot(address: string, slots: Date[]): Promise<Map<number, number>> {
    const { rows } = await this.db.runPrepared<
      Pick<ConsumedChallengeEntity, 'issuedAt'> & { consumed: number }
    >(
      'tollgate_consumed_per_slot',
      sql`SELECT ${ISSUED_AT}, count(*)::int AS consumed FROM consumed_challenges
          WHERE address = ${address} AND issued_at = ANY(${slots}::timestamptz[])
          GROUP BY issued_at`,
    );
    return new Map(rows.map((row) => [row.issuedAt.getTime(), row.consumed]));
  }

  /**
   * Records a challenge as used in one atomic statement: of many concurrent verifies of the same challenge exactly
   * one gets `consumed` (the nonce is the primary key). The same statement reads the address's session generation
   * (0 without a "sign out everywhere"), which the session the login opens carries: one round trip for both.
   */
  async consumeChallenge(challenge: ConsumedChallenge): Promise<{ consumed: boolean; generation: number }> {
    const { rows } = await this.db.runPrepared<{ consumed: boolean; generation: string | null }>(
      'tollgate_consume_challenge',
      sql`WITH consumed AS (
            INSERT INTO consumed_challenges (nonce, address, issued_at, expires_at)
            VALUES (${challenge.nonce}, ${challenge.address}, ${challenge.issuedAt}, ${challenge.expiresAt})
            ON CONFLICT (nonce) DO NOTHING
            RETURNING nonce
          )
          SELECT EXISTS (SELECT 1 FROM consumed) AS consumed,
                 (SELECT generation FROM session_cutoffs WHERE address = ${challenge.address}) AS generation`,
    );
    return { consumed: rows[0]!.consumed, generation: Number(rows[0]!.generation ?? 0) };
  }

  async revokeToken(tx: SqlExecutor, jti: string, expiresAt: Date): Promise<void> {
    await tx.run(
      sql`INSERT INTO revoked_tokens (jti, expires_at) VALUES (${jti}, ${expiresAt}) ON CONFLICT (jti) DO NOTHING`,
    );
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    const { rowCount } = await this.db.run(sql`SELECT 1 FROM revoked_tokens WHERE jti = ${jti}`);
    return rowCount > 0;
  }

  /**
   * Signs every session of the address out: a new generation from the shared sequence, above every generation a
   * live token of the address carries, so each of them is refused, however close in time to a previous cutoff.
   * The session_cutoffs trigger writes the cache invalidation in the same transaction.
   */
  async cutOffSessions(tx: SqlExecutor, address: string, at: Date): Promise<void> {
    await tx.run(
      sql`INSERT INTO session_cutoffs (address, not_before) VALUES (${address}, ${at})
          ON CONFLICT (address) DO UPDATE SET
            not_before = GREATEST(session_cutoffs.not_before, EXCLUDED.not_before),
            generation = nextval(pg_get_serial_sequence('session_cutoffs', 'generation'))`,
    );
  }

  async sessionCutoff(address: string): Promise<SessionCutoff | undefined> {
    const { rows } = await this.db.run<SessionCutoff>(
      sql`SELECT ${CUTOFF} FROM session_cutoffs WHERE address = ${address}`,
    );
    return rows[0];
  }

  /**
   * Forgets consumed challenges and revoked tokens that have expired anyway, and cutoffs older than any token can
   * live (`tokenTtlSeconds`): nothing could present what they refuse again. A cutoff recorded again later draws a
   * new generation from the sequence, above any a token still carries.
   */
  async purgeExpired(
    tokenTtlSeconds: number,
  ): Promise<{ challenges: number; revokedTokens: number; sessionCutoffs: number }> {
    const challenges = await this.db.run(sql`DELETE FROM consumed_challenges WHERE expires_at < now()`);
    const revoked = await this.db.run(sql`DELETE FROM revoked_tokens WHERE expires_at < now()`);
    const cutoffs = await this.db.run(
      sql`DELETE FROM session_cutoffs WHERE not_before < now() - make_interval(secs => ${tokenTtlSeconds + 60})`,
    );
    return {
      challenges: challenges.rowCount,
      revokedTokens: revoked.rowCount,
      sessionCutoffs: cutoffs.rowCount,
    };
  }
}
