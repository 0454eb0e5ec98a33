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
    const { rows } = await this.db.query<Pick<ConsumedChallengeEntity, 'issuedAt'> & { consumed: number }>(
      `SELECT ${ISSUED_AT}, count(*)::int AS consumed FROM consumed_challenges
       WHERE address = $1 AND issued_at = ANY($2::timestamptz[])
       GROUP BY issued_at`,
      [address, slots],
    );
    return new Map(rows.map((row) => [row.issuedAt.getTime(), row.consumed]));
  }

  /**
   * Records a challenge as used in one atomic statement: of many concurrent verifies of the same challenge exactly
   * one gets `true` (the nonce is the primary key).
   */
  async consumeChallenge(challenge: ConsumedChallenge): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO consumed_challenges (nonce, address, issued_at, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (nonce) DO NOTHING`,
      [challenge.nonce, challenge.address, challenge.issuedAt, challenge.expiresAt],
    );
    return rowCount === 1;
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

  /** Forgets consumed challenges and revoked tokens that have expired anyway: nothing could present them again. */
  async purgeExpired(): Promise<{ challenges: number; revokedTokens: number }> {
    const challenges = await this.db.query(`DELETE FROM consumed_challenges WHERE expires_at < now()`);
    const revoked = await this.db.query(`DELETE FROM revoked_tokens WHERE expires_at < now()`);
    return { challenges: challenges.rowCount, revokedTokens: revoked.rowCount };
  }
}
