import { Injectable } from '@nestjs/common';
import { DatabaseSession } from '../../../database/database-session.js';
import { Database, type SqlExecutor } from '../../../database/database.service.js';
import { raw, sql, type Sql } from '../../../database/sql.js';
import { selectList } from '../../../database/select-list.js';
import { WebhookDeliveryEntity, type WebhookDeliveryStatus } from '../../webhook-delivery.entity.js';
import type { WebhookEndpointEntity } from '../../webhook-endpoint.entity.js';
import { DeliveryPoller } from './delivery-poller.js';
import {
  DeliveryQueue,
  type Attempt,
  type ClaimedDelivery,
  type FanOutInput,
  type SettledAttempt,
} from './delivery-queue.js';
import { WriteBatcher } from './write-batcher.js';

/**
 * How long a claim holds a delivery: well over the client's 10 s budget, so a live attempt never loses it; a claim
 * whose process died is taken again once it has run out.
 */
const LEASE = sql`interval '30 seconds'`;

/** Where a process that enqueued without attempting tells the others' pollers (LISTEN on `DatabaseSession`). */
const WAKE_CHANNEL = 'tollgate_webhook_deliveries';
/** At most one wake-up notification per process in this span: each is a commit that takes the notification lock. */
const NOTIFY_SPACING_MS = 50;
/**
 * The longest idle wait of a poller that hears other processes' enqueues: it polls only for what no one announces
 * (a dead process's leases and retries).
 */
const MAX_IDLE_LISTENING_MS = 15_000;
/**
 * Without a session to listen on (behind a transaction pooler, or while it is down), what another process enqueued
 * waits for a poll: at most this long.
 */
const MAX_IDLE_POLLING_MS = 1_000;

/** Successful attempts recorded by one statement at most; a few hundred rows keep it well under a millisecond each. */
const MAX_COMPLETE_BATCH = 256;

type ClaimedRow = Omit<ClaimedDelivery, 'secrets'> & Pick<WebhookEndpointEntity, 'secret' | 'previousSecret'>;

/** What a claim returns: the delivery `d` and what its attempt needs of its configuration `e`. */
const CLAIMED = raw(`${selectList(
  WebhookDeliveryEntity,
  ['id', 'endpointId', 'eventId', 'eventType', 'payload', 'attemptCount', 'createdAt'],
  'd',
)}, e.url, e.enabled AS "endpointEnabled", e.secret,
  CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END AS "previousSecret"`);

function claimed(row: ClaimedRow): ClaimedDelivery {
  const { secret, previousSecret, ...rest } = row;
  return { ...rest, secrets: previousSecret ? [secret, previousSecret] : [secret] };
}

/** Held by no live claim: never claimed, or its lease ran out. */
const UNLEASED = sql`(locked_until IS NULL OR locked_until < now())`;

/** Pending, due and unleased: what a claim may take. */
const CLAIMABLE = sql`status = 'pending' AND next_attempt_at <= now() AND ${UNLEASED}`;

/**
 * The log lines of `attempts`, as a statement that returns each one's delivery, configuration and status code (for
 * the statements that record what follows from them).
 */
function logAttempts(attempts: readonly Attempt[]): Sql {
  const column = <T>(pick: (attempt: Attempt) => T): T[] => attempts.map(pick);
  return sql`INSERT INTO webhook_attempts
      (delivery_id, endpoint_id, attempted_at, success, status_code, duration_ms, error, response_body)
    SELECT * FROM unnest(${column((a) => a.delivery.id)}::uuid[], ${column((a) => a.delivery.endpointId)}::uuid[],
      ${column((a) => a.attemptedAt)}::timestamptz[], ${column((a) => a.outcome.success)}::boolean[],
      ${column((a) => a.outcome.statusCode)}::int[], ${column((a) => a.outcome.durationMs)}::int[],
      ${column((a) => a.outcome.error)}::text[], ${column((a) => a.outcome.responseBody)}::text[])
    RETURNING delivery_id, endpoint_id, status_code`;
}

/**
 * Once a configuration answers again after failures (its `failing_since` cleared, `recovered`): its other waiting
 * retries are due now, oldest first (due since they were created), instead of minutes or hours later. `except`: the
 * deliveries the statement records, which it updates already.
 */
function pullForward(except: Sql): Sql {
  return sql`UPDATE webhook_deliveries d SET next_attempt_at = d.created_at, updated_at = now()
    FROM recovered
    WHERE d.endpoint_id = recovered.id AND d.status = 'pending' AND d.attempt_count > 0
      AND d.next_attempt_at > now() AND d.id <> ALL(${except})
    RETURNING d.id`;
}

/** What every recorded attempt changes in its delivery, `d`: one more attempt, and the claim released. */
const ATTEMPTED = sql`attempt_count = d.attempt_count + 1, locked_until = NULL, updated_at = now()`;

/**
 * The pending rows of `webhook_deliveries` are the queue. The producer's statement inserts them; pollers claim due
 * ones in batches with `FOR UPDATE SKIP LOCKED` and a lease (`locked_until`); the successes of a moment are recorded
 * by one statement, any other attempt by one statement of its own.
 */
@Injectable()
export class PostgresDeliveryQueue extends DeliveryQueue {
  private readonly completions: WriteBatcher<Attempt>;
  private poller: DeliveryPoller<ClaimedDelivery> | undefined;
  private notifyTimer: NodeJS.Timeout | undefined;
  private notifyAgain = false;

  constructor(
    private readonly db: Database,
    private readonly session: DatabaseSession,
  ) {
    super();
    this.completions = new WriteBatcher((attempts) => this.completeAll(attempts), MAX_COMPLETE_BATCH);
  }

  fanOut(event: FanOutInput): Sql {
    // Before the commit: a woken poller that finds nothing yet looks again shortly (DeliveryPoller.wake).
    this.somethingDue();
    return sql`INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at)
       SELECT id, ${event.eventId}::uuid, ${event.eventType}::text, ${event.body}::text, now() FROM webhook_endpoints
       WHERE enabled
         AND (owner_address = ${event.address}::varchar OR owner_address = ANY(${event.operators}::varchar[]))
         AND ('*' = ANY(events) OR ${event.eventType}::text = ANY(events))
       ON CONFLICT (endpoint_id, event_id) DO NOTHING`;
  }

  async enqueueClaimed(
    tx: SqlExecutor,
    event: { id: string; type: string; body: string },
    endpointIds: readonly string[],
  ): Promise<ClaimedDelivery[]> {
    const { rows } = await tx.run<ClaimedRow>(sql`WITH d AS (
         INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at, locked_until)
         SELECT id, ${event.id}, ${event.type}, ${event.body}, now(), now() + ${LEASE} FROM webhook_endpoints
         WHERE id = ANY(${endpointIds}::uuid[])
         RETURNING *
       )
       SELECT ${CLAIMED} FROM d JOIN webhook_endpoints e ON e.id = d.endpoint_id`);
    return rows.map(claimed);
  }

  consume(attempt: (delivery: ClaimedDelivery) => Promise<void>): void {
    // Listening only while the session is up: without it (a transaction pooler, or the session down) it polls.
    const maxIdleMs = () => (this.session.presentAs ? MAX_IDLE_LISTENING_MS : MAX_IDLE_POLLING_MS);
    const poller = new DeliveryPoller((limit) => this.claim(limit), attempt, maxIdleMs);
    this.poller = poller;
    this.session.listen(WAKE_CHANNEL, () => poller.wake());
    poller.start();
  }

  async stop(): Promise<void> {
    clearTimeout(this.notifyTimer);
    await this.poller?.stop();
  }

  /**
   * Deliveries are due now or in a moment: this process's poller claims them when it has one; otherwise the pollers
   * of the processes that listen are told, by one notification per NOTIFY_SPACING_MS at most (the last one of a
   * burst is sent at the end of its span), in a statement of its own rather than in the producer's transaction.
   */
  private somethingDue(): void {
    if (this.poller) return this.poller.wake();
    if (this.notifyTimer) {
      this.notifyAgain = true;
      return;
    }
    this.db.run(sql`SELECT pg_notify(${WAKE_CHANNEL}, '')`).catch(() => undefined);
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      if (!this.notifyAgain) return;
      this.notifyAgain = false;
      this.somethingDue();
    }, NOTIFY_SPACING_MS);
    this.notifyTimer.unref();
  }

  /**
   * Takes up to `limit` due deliveries that no live claim holds: due retries first, then first attempts, each in the
   * order they fell due. A backlog of first attempts therefore never delays a retry, whose time the receiver was told
   * (about 5 s after a failure); each group is read from a partial index in due order, so a claim reads about
   * `limit` rows however long the backlog. `SKIP LOCKED` lets several processes claim at once without waiting on or
   * taking each other's rows.
   */
  async claim(limit: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.db.runPrepared<ClaimedRow & { claimOrder: string }>(
      'webhook_deliveries_claim',
      sql`WITH retries AS (
         SELECT id, next_attempt_at FROM webhook_deliveries WHERE attempt_count > 0 AND ${CLAIMABLE}
         ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
       ), first_attempts AS (
         SELECT id, next_attempt_at FROM webhook_deliveries WHERE attempt_count = 0 AND ${CLAIMABLE}
         ORDER BY next_attempt_at LIMIT ${limit} - (SELECT count(*) FROM retries) FOR UPDATE SKIP LOCKED
       ), taken AS (
         SELECT id, row_number() OVER (ORDER BY retry DESC, next_attempt_at) AS claim_order
         FROM (SELECT id, next_attempt_at, true AS retry FROM retries
               UNION ALL SELECT id, next_attempt_at, false FROM first_attempts) due
       )
       UPDATE webhook_deliveries d SET locked_until = now() + ${LEASE}
       FROM taken, webhook_endpoints e
       WHERE d.id = taken.id AND e.id = d.endpoint_id
       RETURNING ${CLAIMED}, taken.claim_order AS "claimOrder"`,
    );
    // RETURNING comes back in the update's scan order, not the claim's: put the batch back in due order.
    return rows
      .sort((a, b) => Number(a.claimOrder) - Number(b.claimOrder))
      .map(({ claimOrder: _order, ...row }) => claimed(row));
  }

  async claimOwned(
    ownerAddress: string,
    deliveryId: string,
    maxAttempts: number,
  ): Promise<ClaimedDelivery | 'busy' | 'exhausted' | 'not_found'> {
    const { rows } = await this.db.run<ClaimedRow>(
      sql`UPDATE webhook_deliveries d SET locked_until = now() + ${LEASE}
       FROM webhook_endpoints e
       WHERE d.id = ${deliveryId} AND e.id = d.endpoint_id AND e.owner_address = ${ownerAddress}
         AND ${UNLEASED} AND d.attempt_count < ${maxAttempts}
       RETURNING ${CLAIMED}`,
    );
    if (rows[0]) return claimed(rows[0]);
    const existing = await this.db.run<{ exhausted: boolean }>(
      sql`SELECT d.attempt_count >= ${maxAttempts} AS exhausted
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = ${deliveryId} AND e.owner_address = ${ownerAddress}`,
    );
    const [row] = existing.rows;
    if (!row) return 'not_found';
    return row.exhausted ? 'exhausted' : 'busy';
  }

  /** The successes that come in during one turn of the event loop, or while the last write runs, go out together. */
  complete(attempt: Attempt): Promise<void> {
    return this.completions.add(attempt);
  }

  /**
   * Records an attempt and everything that follows from it in one statement, so all of it happens or none (a crash
   * leaves the delivery claimed until its lease runs out; then it is attempted again): the log line, the
   * configuration's health and the delivery's new state (for a retry, when it is due). A success ends a failing
   * streak; a failure starts one, and a 410 or five days of nothing but failures switches the configuration off.
   * The configuration's row is locked and written only when something changes, so a receiver that keeps failing
   * does not make its deliveries queue on that lock.
   */
  async settle(attempt: SettledAttempt): Promise<WebhookDeliveryStatus> {
    const { delivery, outcome, afterFailure } = attempt;
    const keep = !outcome.success && afterFailure === 'keep';
    const retryInMs =
      !outcome.success && typeof afterFailure === 'object' ? Math.round(afterFailure.retryInMs) : null;
    // A retry falls back to 'failed' when its configuration is disabled (now, or by this very attempt).
    const otherwise = outcome.success ? 'succeeded' : keep ? null : 'failed';
    const health = attempt.trackHealth;
    const { rows } = await this.db.runPrepared<{ status: WebhookDeliveryStatus; pulled: number }>(
      'webhook_deliveries_settle',
      sql`WITH logged AS (${logAttempts([attempt])}
       ), recovered AS (
         UPDATE webhook_endpoints SET failing_since = NULL
         WHERE id = ${delivery.endpointId} AND ${health && outcome.success}::boolean AND failing_since IS NOT NULL
         RETURNING id
       ), pulled AS (${pullForward(sql`ARRAY[${delivery.id}::uuid]`)}
       ), verdict AS (
         SELECT id, reason FROM (
           SELECT id, enabled, failing_since,
             CASE WHEN ${outcome.statusCode === 410}::boolean THEN 'gone'
                  WHEN failing_since <= now() - interval '5 days' THEN 'failing' END AS reason
           FROM webhook_endpoints WHERE id = ${delivery.endpointId} AND ${health && !outcome.success}::boolean
         ) AS endpoint
         WHERE failing_since IS NULL OR (enabled AND reason IS NOT NULL)
         FOR UPDATE
       ), failing AS (
         UPDATE webhook_endpoints e SET
           failing_since = coalesce(e.failing_since, now()),
           enabled = e.enabled AND v.reason IS NULL,
           disabled_reason = CASE WHEN e.enabled THEN v.reason ELSE e.disabled_reason END,
           updated_at = CASE WHEN e.enabled AND v.reason IS NOT NULL THEN now() ELSE e.updated_at END
         FROM verdict v WHERE e.id = v.id
         RETURNING e.enabled
       ), retry AS (
         -- Scheduled in database time, as claims compare it, so clock skew between hosts cannot matter.
         SELECT now() + ${retryInMs}::int * interval '1 millisecond' AS at
         WHERE ${retryInMs}::int IS NOT NULL
           AND coalesce((SELECT enabled FROM failing), ${delivery.endpointEnabled}::boolean)
       )
       UPDATE webhook_deliveries d SET ${ATTEMPTED},
         status = CASE WHEN EXISTS (SELECT FROM retry) THEN 'pending' ELSE coalesce(${otherwise}::varchar, d.status) END,
         next_attempt_at = CASE WHEN ${keep}::boolean THEN d.next_attempt_at ELSE (SELECT at FROM retry) END,
         last_status_code = ${outcome.statusCode}::int, last_error = ${outcome.error}::text
       WHERE d.id = ${delivery.id}
       RETURNING d.status, (SELECT count(*)::int FROM pulled) AS pulled`,
    );
    const { status, pulled } = rows[0]!;
    if (pulled > 0) this.somethingDue();
    if (status === 'pending' && retryInMs !== null) this.poller?.dueIn(retryInMs);
    return status;
  }

  async abandon(deliveryId: string, reason: string): Promise<void> {
    await this.db.run(
      sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, locked_until = NULL,
         last_error = ${reason}, updated_at = now()
       WHERE id = ${deliveryId}`,
    );
  }

  async depth(): Promise<{ depth: number; oldestSeconds: number }> {
    const { rows } = await this.db.run<{ depth: number; oldestSeconds: number | null }>(
      sql`SELECT count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS "oldestSeconds"
       FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return { depth: rows[0]?.depth ?? 0, oldestSeconds: rows[0]?.oldestSeconds ?? 0 };
  }

  /**
   * Records successful scheduled attempts in one statement: their log lines, their deliveries succeeded, the end of
   * any failing streak of their configurations and, for those, their waiting retries due now.
   */
  private async completeAll(attempts: readonly Attempt[]): Promise<void> {
    const { rowCount: pulled } = await this.db.runPrepared(
      'webhook_deliveries_complete',
      sql`WITH logged AS (${logAttempts(attempts)}
       ), delivered AS (
         UPDATE webhook_deliveries d SET ${ATTEMPTED}, status = 'succeeded', next_attempt_at = NULL,
           last_status_code = logged.status_code, last_error = NULL
         FROM logged WHERE d.id = logged.delivery_id
       ), recovered AS (
         UPDATE webhook_endpoints SET failing_since = NULL
         WHERE id IN (SELECT endpoint_id FROM logged) AND failing_since IS NOT NULL
         RETURNING id
       )
       ${pullForward(sql`ARRAY(SELECT delivery_id FROM logged)`)}`,
    );
    if (pulled > 0) this.somethingDue();
  }
}
