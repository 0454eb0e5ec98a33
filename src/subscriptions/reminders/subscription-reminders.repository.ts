import { Injectable } from '@nestjs/common';
import { Database, type SqlExecutor } from '../../database/database.service.js';
import { selectList } from '../../database/select-list.js';
import { raw, sql } from '../../database/sql.js';
import { SubscriptionEntity } from '../subscription.entity.js';
import { STORED, type StoredSubscription } from '../subscriptions.repository.js';

/** A subscription whose reminder this transaction claimed, and the database's clock (the transaction's start). */
export interface ClaimedReminder {
  subscription: StoredSubscription;
  now: Date;
}

/** A trial whose reminder this transaction claimed, and the database's clock (the transaction's start). */
export interface ClaimedTrialReminder {
  subscription: StoredSubscription & { trialEnd: Date };
  now: Date;
}

const COLUMNS = raw(selectList(SubscriptionEntity, STORED, 's'));

/** How long a reminder's row outlives its period end: long past the last instant it could be claimed again. */
const KEPT_AFTER_PERIOD_END = sql`interval '1 day'`;

/** Owns the queries of `subscription_reminders`, the record of which period ends have had their reminder. */
@Injectable()
export class SubscriptionRemindersRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims up to `limit` reminders that are due: active periods (ending after now) that end within `noticeHours`,
   * not canceled at period end, whose end has no reminder yet. The claim is the row inserted into
   * `subscription_reminders`; the caller records the event in the same transaction. Each subscription is locked
   * until then (rows a renewal or another sweep holds are skipped), so the reminder is about the period as it
   * stands; a concurrent claim of the same (address, period end) waits on the primary key and then inserts nothing,
   * so only one transaction ever returns a given period end.
   */
  async claimDue(tx: SqlExecutor, noticeHours: number, limit: number): Promise<ClaimedReminder[]> {
    const { rows } = await tx.run<ClaimedReminder['subscription'] & { now: Date }>(
      // now(), the transaction's start, rather than clock_timestamp(): a stable value bounds the index scan.
      sql`WITH due AS (
          SELECT ${COLUMNS} FROM subscriptions s
          WHERE s.current_period_end > now()
            AND s.current_period_end <= now() + make_interval(hours => ${noticeHours}::int)
            AND NOT s.cancel_at_period_end
            -- A period that ends with its trial has subscription.trial_will_end instead (claimTrialsDue).
            AND s.trial_end IS DISTINCT FROM s.current_period_end
            -- Always true of a period still running; lets the scan use ix_subscriptions_expiry_pending.
            AND s.expiry_recorded_for IS DISTINCT FROM s.current_period_end
            AND NOT EXISTS (SELECT 1 FROM subscription_reminders r
              WHERE r.address = s.address AND r.period_end = s.current_period_end)
          ORDER BY s.current_period_end
          LIMIT ${limit}
          FOR UPDATE OF s SKIP LOCKED
        ),
        claimed AS (
          INSERT INTO subscription_reminders (address, period_end)
          SELECT address, "currentPeriodEnd" FROM due
          ON CONFLICT DO NOTHING
          RETURNING address, period_end
        )
        SELECT due.*, now() AS now FROM due
        JOIN claimed ON claimed.address = due.address AND claimed.period_end = due."currentPeriodEnd"
        ORDER BY due."currentPeriodEnd"`,
    );
    return rows.map(({ now, ...subscription }) => ({ subscription, now }));
  }

  /**
   * Claims up to `limit` trials whose `subscription.trial_will_end` is due: the subscription's current trial (its
   * plan and trial end those of the trial granted) ends after now and within `noticeHours`, and is not canceled. The
   * claim is `reminded_at`, set once in the same statement; the subscription row is locked until the caller's
   * transaction ends (rows a renewal or another sweep holds are skipped, and the trial row is re-checked once
   * locked), so only one transaction ever returns a given trial.
   */
  async claimTrialsDue(tx: SqlExecutor, noticeHours: number, limit: number): Promise<ClaimedTrialReminder[]> {
    const { rows } = await tx.run<ClaimedTrialReminder['subscription'] & { now: Date }>(
      sql`WITH due AS (
          SELECT ${COLUMNS}
          FROM subscription_trials t
          JOIN subscriptions s ON s.address = t.address AND s.plan_id = t.plan_id AND s.trial_end = t.trial_end
          WHERE t.reminded_at IS NULL
            AND t.trial_end > now()
            AND t.trial_end <= now() + make_interval(hours => ${noticeHours}::int)
            AND s.current_period_end > now()
            AND NOT s.cancel_at_period_end
          ORDER BY t.trial_end
          LIMIT ${limit}
          FOR UPDATE OF s, t SKIP LOCKED
        ),
        claimed AS (
          UPDATE subscription_trials t SET reminded_at = now()
          FROM due WHERE t.address = due.address AND t.plan_id = due."planId" AND t.reminded_at IS NULL
          RETURNING t.address, t.plan_id
        )
        SELECT due.*, now() AS now FROM due
        JOIN claimed ON claimed.address = due.address AND claimed.plan_id = due."planId"
        ORDER BY due."trialEnd"`,
    );
    return rows.map(({ now, ...subscription }) => ({
      subscription: { ...subscription, trialEnd: subscription.trialEnd! },
      now,
    }));
  }

  /** Deletes up to `limit` reminders of period ends long gone (they can never be due again); returns how many. */
  async deleteStale(limit: number): Promise<number> {
    const { rowCount } = await this.db.run(
      sql`DELETE FROM subscription_reminders WHERE (address, period_end) IN (
          SELECT address, period_end FROM subscription_reminders
          WHERE period_end < clock_timestamp() - ${KEPT_AFTER_PERIOD_END}
          LIMIT ${limit})`,
    );
    return rowCount;
  }
}
