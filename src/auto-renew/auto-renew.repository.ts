import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { raw, sql } from '../database/sql.js';
import { MandateEntity } from './mandate.entity.js';

const STORED = [
  'id',
  'address',
  'status',
  'gateway',
  'chainId',
  'charger',
  'token',
  'payee',
  'amountMinor',
  'periodSeconds',
  'startAt',
  'periods',
  'salt',
  'mandateHash',
  'signature',
  'chargedThrough',
  'nextChargeAt',
  'attempts',
  'failureReason',
  'failureMessage',
  'failedAt',
  'allowanceShortfall',
  'endedReason',
] as const satisfies readonly (keyof MandateEntity)[];

/** A mandate row as the feature works with it (no lease, no timestamps of its own). */
export type StoredMandate = Pick<MandateEntity, (typeof STORED)[number]>;

const COLUMNS = raw(selectList(MandateEntity, STORED));

/** A mandate to register: its terms, as the service checked them. */
export type NewMandate = Omit<
  StoredMandate,
  | 'id'
  | 'status'
  | 'chargedThrough'
  | 'attempts'
  | 'failureReason'
  | 'failureMessage'
  | 'failedAt'
  | 'endedReason'
>;

/** A failed attempt, as the mandate records it. */
export interface RecordedFailure {
  reason: string;
  message: string;
  nextChargeAt: Date;
}

/**
 * Owns the statements of automatic renewal. The sweep claims due mandates with a lease (`claimDue`), calls the
 * executor outside any transaction, and records the outcome (`markCharged`, `recordFailure`, `reschedule`, `end`),
 * each releasing the lease.
 */
@Injectable()
export class AutoRenewRepository {
  constructor(private readonly db: Database) {}

  /** The enabled mandate of a (lowercase) address, or null; in `tx` when given. */
  async findEnabled(address: string, tx: SqlExecutor = this.db): Promise<StoredMandate | null> {
    const { rows } = await tx.runPrepared<StoredMandate>(
      'auto_renew_find_enabled',
      sql`SELECT ${COLUMNS} FROM auto_renew_mandates WHERE address = ${address} AND status = 'enabled'`,
    );
    return rows[0] ?? null;
  }

  /** The mandates registered under these (lowercase) hashes, in any status. */
  async findByHashes(mandateHashes: string[]): Promise<StoredMandate[]> {
    const { rows } = await this.db.run<StoredMandate>(
      sql`SELECT ${COLUMNS} FROM auto_renew_mandates WHERE mandate_hash = ANY(${mandateHashes}::varchar[])`,
    );
    return rows;
  }

  /**
   * The first block of `charger`'s logs the Charged-log follower has not read; on the first call `start`, which it
   * then keeps (a concurrent first call by another instance may win: its start is as good).
   */
  async logCursor(chainId: number, charger: string, start: bigint): Promise<bigint> {
    await this.db.run(
      sql`INSERT INTO auto_renew_log_cursors (chain_id, charger, next_block)
          VALUES (${chainId}, ${charger}, ${start.toString()}::bigint)
          ON CONFLICT (chain_id, charger) DO NOTHING`,
    );
    const { rows } = await this.db.run<{ nextBlock: string }>(
      sql`SELECT next_block AS "nextBlock" FROM auto_renew_log_cursors
          WHERE chain_id = ${chainId} AND charger = ${charger}`,
    );
    return BigInt(rows[0]!.nextBlock);
  }

  /** The follower read `charger`'s logs up to `nextBlock` (excluded): the cursor only ever moves forward. */
  async advanceLogCursor(chainId: number, charger: string, nextBlock: bigint): Promise<void> {
    await this.db.run(
      sql`UPDATE auto_renew_log_cursors
          SET next_block = GREATEST(next_block, ${nextBlock.toString()}::bigint), updated_at = now()
          WHERE chain_id = ${chainId} AND charger = ${charger}`,
    );
  }

  /**
   * Registers `mandate` in place of the address's enabled one (disabled in the same transaction). Null when its hash
   * was registered before (a mandate is registered once, ever).
   */
  async replace(mandate: NewMandate): Promise<StoredMandate | null> {
    return this.db.transaction(async (tx) => {
      // Concurrent registrations of one wallet take turns: else both find no enabled mandate to disable and the
      // second insert breaks the one-enabled-per-wallet index (a 500 where the last registration should win).
      await tx.run(
        sql`SELECT pg_advisory_xact_lock(hashtextextended('auto_renew:' || ${mandate.address}, 0))`,
      );
      await tx.run(
        sql`UPDATE auto_renew_mandates SET status = 'disabled', lease_until = NULL, updated_at = now()
            WHERE address = ${mandate.address} AND status = 'enabled'`,
      );
      const { rows } = await tx.run<StoredMandate>(
        sql`INSERT INTO auto_renew_mandates
            (address, status, gateway, chain_id, charger, token, payee, amount_minor, period_seconds, start_at, periods,
             salt, mandate_hash, signature, next_charge_at, allowance_shortfall)
          VALUES (${mandate.address}, 'enabled', ${mandate.gateway}, ${mandate.chainId}, ${mandate.charger},
            ${mandate.token}, ${mandate.payee}, ${mandate.amountMinor}, ${mandate.periodSeconds}, ${mandate.startAt},
            ${mandate.periods}, ${mandate.salt}, ${mandate.mandateHash}, ${mandate.signature}, ${mandate.nextChargeAt},
            ${mandate.allowanceShortfall})
          ON CONFLICT (mandate_hash) WHERE mandate_hash IS NOT NULL DO NOTHING
          RETURNING ${COLUMNS}`,
      );
      return rows[0] ?? null;
    });
  }

  /** Disables the address's enabled mandate; false when there was none. */
  async disable(address: string): Promise<boolean> {
    const { rows } = await this.db.run(
      sql`UPDATE auto_renew_mandates SET status = 'disabled', lease_until = NULL, updated_at = now()
          WHERE address = ${address} AND status = 'enabled' RETURNING id`,
    );
    return rows.length > 0;
  }

  /** Makes a failed charge due now (POST /subscriptions/auto-renew/retry); false when none failed. */
  async retryNow(address: string): Promise<boolean> {
    const { rows } = await this.db.run(
      sql`UPDATE auto_renew_mandates SET next_charge_at = now(), updated_at = now()
          WHERE address = ${address} AND status = 'enabled' AND failure_reason IS NOT NULL RETURNING id`,
    );
    return rows.length > 0;
  }

  /**
   * Claims up to `limit` enabled mandates due by now and not held by another sweep, holding each for `leaseSeconds`
   * (past it, a sweep that died is taken over; the executor is idempotent per period). Rows being claimed by
   * another instance are skipped.
   */
  async claimDue(limit: number, leaseSeconds: number): Promise<{ mandates: StoredMandate[]; now: Date }> {
    const { rows } = await this.db.run<StoredMandate & { now: Date }>(
      sql`UPDATE auto_renew_mandates SET lease_until = clock_timestamp() + make_interval(secs => ${leaseSeconds}::int)
          WHERE id IN (
            SELECT id FROM auto_renew_mandates
            WHERE status = 'enabled' AND next_charge_at <= clock_timestamp()
              AND (lease_until IS NULL OR lease_until <= clock_timestamp())
            ORDER BY next_charge_at
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING ${COLUMNS}, clock_timestamp() AS now`,
    );
    const now = rows[0]?.now ?? new Date();
    // RETURNING comes in the update's scan order, not the subquery's: the longest due is worked on first.
    const mandates = rows
      .map(({ now: _now, ...mandate }) => mandate)
      .sort((a, b) => a.nextChargeAt.getTime() - b.nextChargeAt.getTime());
    return { mandates, now };
  }

  /** Up to `limit` enabled mandates due (claimed or not), the longest due first. */
  async due(limit: number): Promise<StoredMandate[]> {
    const { rows } = await this.db.run<StoredMandate>(
      sql`SELECT ${COLUMNS} FROM auto_renew_mandates
          WHERE status = 'enabled' AND next_charge_at <= clock_timestamp()
          ORDER BY next_charge_at
          LIMIT ${limit}`,
    );
    return rows;
  }

  /**
   * Seconds since the oldest enabled mandate fell due (`next_charge_at` passed) without being looked at since; 0 when
   * none is due. One read of the due index.
   */
  async oldestDueSeconds(): Promise<number> {
    const { rows } = await this.db.run<{ seconds: number }>(
      sql`SELECT COALESCE(floor(extract(epoch FROM clock_timestamp() - min(next_charge_at))), 0)::integer AS seconds
          FROM auto_renew_mandates WHERE status = 'enabled' AND next_charge_at <= clock_timestamp()`,
    );
    return rows[0]?.seconds ?? 0;
  }

  /** Looks again at `nextChargeAt`, with no attempt made (releases the lease). `clearFailure`: the period moved. */
  async reschedule(id: string, nextChargeAt: Date, clearFailure: boolean): Promise<void> {
    await this.db.run(
      sql`UPDATE auto_renew_mandates SET next_charge_at = ${nextChargeAt}, lease_until = NULL, updated_at = now(),
            attempts = CASE WHEN ${clearFailure}::boolean THEN 0 ELSE attempts END,
            failure_reason = CASE WHEN ${clearFailure}::boolean THEN NULL ELSE failure_reason END,
            failure_message = CASE WHEN ${clearFailure}::boolean THEN NULL ELSE failure_message END,
            failed_at = CASE WHEN ${clearFailure}::boolean THEN NULL ELSE failed_at END
          WHERE id = ${id}`,
    );
  }

  /**
   * Marks period `index` credited, in the credit's transaction, and locks the mandate until it ends. False when it
   * (or a later one) was credited before: the caller credits nothing.
   */
  async markCharged(tx: SqlExecutor, id: string, index: number): Promise<boolean> {
    const { rows } = await tx.run(
      sql`UPDATE auto_renew_mandates
          SET charged_through = ${index}, attempts = 0, failure_reason = NULL, failure_message = NULL,
            failed_at = NULL, allowance_shortfall = 0, lease_until = NULL, updated_at = now()
          WHERE id = ${id} AND (charged_through IS NULL OR charged_through < ${index})
          RETURNING id`,
    );
    return rows.length > 0;
  }

  /** The allowance's shortfall as just read from the chain (after a charge spent part of the allowance). */
  async setShortfall(id: string, shortfall: bigint): Promise<void> {
    await this.db.run(
      sql`UPDATE auto_renew_mandates SET allowance_shortfall = ${shortfall.toString()}, updated_at = now()
          WHERE id = ${id} AND allowance_shortfall <> ${shortfall.toString()}`,
    );
  }

  /** The next look, once the credit moved the period end (in the credit's transaction). */
  async scheduleNext(tx: SqlExecutor, id: string, nextChargeAt: Date): Promise<void> {
    await tx.run(
      sql`UPDATE auto_renew_mandates SET next_charge_at = ${nextChargeAt}, lease_until = NULL WHERE id = ${id}`,
    );
  }

  /** A failed attempt: its reason, the next attempt, one more in a row; the allowance shortfall when it is one. */
  async recordFailure(
    tx: SqlExecutor,
    id: string,
    failure: RecordedFailure,
    allowanceShortfall: bigint | null,
  ): Promise<void> {
    await tx.run(
      sql`UPDATE auto_renew_mandates
          SET attempts = attempts + 1, failure_reason = ${failure.reason}, failure_message = ${failure.message},
            failed_at = clock_timestamp(), next_charge_at = ${failure.nextChargeAt}, lease_until = NULL,
            allowance_shortfall = COALESCE(${allowanceShortfall?.toString() ?? null}::numeric, allowance_shortfall),
            updated_at = now()
          WHERE id = ${id}`,
    );
  }

  /** Ends the mandate for good (`reason`: revoked, used up, the subscription over). */
  async end(tx: SqlExecutor | undefined, id: string, reason: string): Promise<void> {
    await (tx ?? this.db).run(
      sql`UPDATE auto_renew_mandates SET status = 'ended', ended_reason = ${reason}, lease_until = NULL,
            updated_at = now()
          WHERE id = ${id} AND status = 'enabled'`,
    );
  }
}
