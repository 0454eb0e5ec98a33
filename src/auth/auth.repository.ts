import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { ConsumedChallengeEntity } from './consumed-challenge.entity.js';

export type ConsumedChallenge = Pick<ConsumedChallengeEntity, 'address' | 'nonce' | 'issuedAt' | 'expiresAt'>;

const ISSUED_AT = selectList(ConsumedChallengeEntity, ['issuedAt']);

/** Owns the queries of consumed login challenges and revoked tokens. */
@Injectable()
export class AuthRepository {
  constructor(private readonly db: Database) {}

  /** How many of the address's challenges of each of these slots have been consumed (absent: none). */
  async consumedPerSlot(address: string, slots: Date[]): Promise<Map<number, number>> {
    const { rows } = await this.db.queryPrepared<
      Pick<ConsumedChallengeEntity, 'issuedAt'> & { consumed: number }
    >(
      'tollgate_consumed_per_slot',
      `SELECT ${ISSUED_AT}, count(*)::int AS consumed FROM consumed_challenges
       WHERE address = $1 AND issued_at = ANY($2::timestamptz[])
       GROUP BY issued_at`,
      [address, slots],
    );
    return new Map(rows.map((row) => [row.issuedAt.getTime(), row.consumed]));
  }

  /**
   * Records a challenge as used in one atomic statement: of many concurrent verifies of the same challenge exactly
   * one gets `consumed` (the nonce is the primary key). The same statement reads the address's "sign out
   * everywhere" cutoff, which the session the login opens must be dated after: one round trip for both.
   */
  async consumeChallenge(
    challenge: ConsumedChallenge,
  ): Promise<{ consumed: boolean; sessionCutoff: Date | undefined }> {
    const { rows } = await this.db.queryPrepared<{ consumed: boolean; not_before: Date | null }>(
      'tollgate_consume_challenge',
      `WITH consumed AS (
         INSERT INTO consumed_challenges (nonce, address, issued_at, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (nonce) DO NOTHING
         RETURNING nonce
       )
       SELECT EXISTS (SELECT 1 FROM consumed) AS consumed,
              (SELECT not_before FROM session_cutoffs WHERE address = $2) AS not_before`,
      [challenge.nonce, challenge.address, challenge.issuedAt, challenge.expiresAt],
    );
    return { consumed: rows[0]!.consumed, sessionCutoff: rows[0]!.not_before ?? undefined };
  }

  async revokeToken(tx: SqlExecutor, jti: string, expiresAt: Date): Promise<void> {
    await tx.query(
      `INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING`,
      [jti, expiresAt],
    );
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    const { rowCount } = await this.db.query(`SELECT 1 FROM revoked_tokens WHERE jti = $1`, [jti]);
    return rowCount > 0;
  }

  /**
   * Refuses every session token of the address issued before `notBefore` (a later cutoff already recorded stays).
   * The session_cutoffs trigger writes the cache invalidation in the same statement's transaction.
   */
  async cutOffSessions(address: string, notBefore: Date): Promise<void> {
    await this.db.query(
      `INSERT INTO session_cutoffs (address, not_before) VALUES ($1, $2)
       ON CONFLICT (address) DO UPDATE SET not_before = GREATEST(session_cutoffs.not_before, EXCLUDED.not_before)`,
      [address, notBefore],
    );
  }

  async sessionCutoff(address: string): Promise<Date | undefined> {
    const { rows } = await this.db.query<{ not_before: Date }>(
      `SELECT not_before FROM session_cutoffs WHERE address = $1`,
      [address],
    );
    return rows[0]?.not_before;
  }

  /**
   * Forgets consumed challenges and revoked tokens that have expired anyway, and cutoffs older than any token can
   * live (`tokenTtlSeconds`): nothing could present what they refuse again.
   */
  async purgeExpired(
    tokenTtlSeconds: number,
  ): Promise<{ challenges: number; revokedTokens: number; sessionCutoffs: number }> {
    const challenges = await this.db.query(`DELETE FROM consumed_challenges WHERE expires_at < now()`);
    const revoked = await this.db.query(`DELETE FROM revoked_tokens WHERE expires_at < now()`);
    const cutoffs = await this.db.query(
      `DELETE FROM session_cutoffs WHERE not_before < now() - make_interval(secs => $1)`,
      [tokenTtlSeconds + 60],
    );
    return {
      challenges: challenges.rowCount,
      revokedTokens: revoked.rowCount,
      sessionCutoffs: cutoffs.rowCount,
    };
  }
}
