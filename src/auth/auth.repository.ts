import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../database/database.service.js';

/** CONTRACT.md section 2: at most this many outstanding challenges per address; the oldest is dropped. */
export const MAX_OUTSTANDING_CHALLENGES = 5;

export interface NewChallenge {
  address: string;
  nonce: string;
  message: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface OutstandingChallenge {
  id: string;
  nonce: string;
  message: string;
}

/** Owns the queries of login challenges and revoked tokens. */
@Injectable()
export class AuthRepository {
  constructor(private readonly db: Database) {}

  /** Stores a challenge and drops the address's oldest outstanding ones beyond the cap, in one transaction. */
  async insertChallenge(challenge: NewChallenge): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO auth_challenges (address, nonce, message, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [challenge.address, challenge.nonce, challenge.message, challenge.issuedAt, challenge.expiresAt],
      );
      await tx.query(
        `DELETE FROM auth_challenges WHERE id IN (
           SELECT id FROM auth_challenges
           WHERE address = $1 AND consumed_at IS NULL
           ORDER BY created_at DESC, issued_at DESC
           OFFSET $2)`,
        [challenge.address, MAX_OUTSTANDING_CHALLENGES],
      );
    });
  }

  /** The address's unconsumed, unexpired challenges, newest first. */
  async outstandingChallenges(address: string): Promise<OutstandingChallenge[]> {
    const { rows } = await this.db.query<OutstandingChallenge>(
      `SELECT id, nonce, message FROM auth_challenges
       WHERE address = $1 AND consumed_at IS NULL AND expires_at > now()
       ORDER BY created_at DESC, issued_at DESC`,
      [address],
    );
    return rows;
  }

  /**
   * Consumes a challenge in one atomic statement: of many concurrent verifies of the same challenge exactly one
   * gets `true`.
   */
  async consumeChallenge(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE auth_challenges SET consumed_at = now()
       WHERE id = $1 AND consumed_at IS NULL AND expires_at > now()
       RETURNING id`,
      [id],
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

  /** Deletes expired or long-consumed challenges and revocations of tokens that have expired anyway. */
  async purgeExpired(): Promise<{ challenges: number; revokedTokens: number }> {
    const challenges = await this.db.query(
      `DELETE FROM auth_challenges WHERE expires_at < now() OR consumed_at < now() - interval '1 hour'`,
    );
    const revoked = await this.db.query(`DELETE FROM revoked_tokens WHERE expires_at < now()`);
    return { challenges: challenges.rowCount, revokedTokens: revoked.rowCount };
  }
}
