import { Injectable } from '@nestjs/common';
import {
  pageParameters,
  pageSql,
  toPage,
  type Page,
  type PagePosition,
  type PageRequest,
} from '../../common/pagination/cursor-page.js';
import { Database, type SqlExecutor } from '../../database/database.service.js';
import { sql, type Sql } from '../../database/sql.js';
import { selectList } from '../../database/select-list.js';
import { WebhookAttemptEntity } from '../webhook-attempt.entity.js';
import { WebhookDeliveryEntity, type WebhookDeliveryStatus } from '../webhook-delivery.entity.js';
import type { WebhookEndpointEntity } from '../webhook-endpoint.entity.js';
import type { DeliveryOutcome } from './guarded-http.client.js';

/**
 * How long a claim holds a delivery: well over the client's 10 s budget, so a live attempt never loses it; a claim
 * whose process died is taken again once it has run out.
 */
const LEASE = `interval '30 seconds'`;

const CLAIMED = [
  'id',
  'endpointId',
  'eventId',
  'eventType',
  'payload',
  'attemptCount',
  // When the event was fanned out to this configuration (in the event's own transaction).
  'createdAt',
] as const satisfies readonly (keyof WebhookDeliveryEntity)[];

/** A delivery that this process holds (`locked_until`) and may attempt, with what the attempt needs. */
export type ClaimedDelivery = Pick<WebhookDeliveryEntity, (typeof CLAIMED)[number]> &
  Pick<WebhookEndpointEntity, 'url'> & {
    endpointEnabled: boolean;
    /** The current secret, then the previous one while its rotation overlap lasts. */
    secrets: string[];
  };

type ClaimedRow = Omit<ClaimedDelivery, 'secrets'> & Pick<WebhookEndpointEntity, 'secret' | 'previousSecret'>;

const CLAIMED_COLUMNS = `${selectList(WebhookDeliveryEntity, CLAIMED, 'd')}, e.url, e.enabled AS "endpointEnabled",
  e.secret, CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END AS "previousSecret"`;

function claimed(row: ClaimedRow): ClaimedDelivery {
  const { secret, previousSecret, ...rest } = row;
  return { ...rest, secrets: previousSecret ? [secret, previousSecret] : [secret] };
}

export interface FanOutInput {
  eventId: string;
  eventType: string;
  /** Lowercase address the event is about. */
  address: string;
  body: string;
  /** Lowercase operator addresses whose configurations receive this event too (subscription events only). */
  operators: readonly string[];
}

/** After a failed attempt: retry after a delay, give up, or leave status and schedule alone (manual re-sends). */
export type AfterFailure = { retryInMs: number } | 'fail' | 'keep';

export interface AttemptRecord {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  outcome: DeliveryOutcome;
  /** Whether the attempt counts towards the configuration's health (`failing_since`, 410, five days). */
  trackHealth: boolean;
  afterFailure: AfterFailure;
}

/** A scheduled attempt that succeeded: nothing follows from it but the log line and the delivery's end. */
export interface SuccessRecord {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  outcome: DeliveryOutcome;
}

const ATTEMPT = [
  'id',
  'deliveryId',
  'endpointId',
  'attemptedAt',
  'success',
  'statusCode',
  'durationMs',
  'error',
  'responseBody',
] as const satisfies readonly (keyof WebhookAttemptEntity)[];

const ATTEMPT_DELIVERY = [
  'eventId',
  'eventType',
  'nextAttemptAt',
] as const satisfies readonly (keyof WebhookDeliveryEntity)[];

/** A line of the delivery log: the attempt, and where its delivery stands now. */
export type WebhookAttemptRecord = Pick<WebhookAttemptEntity, (typeof ATTEMPT)[number]> &
  Pick<WebhookDeliveryEntity, (typeof ATTEMPT_DELIVERY)[number]> & { deliveryStatus: WebhookDeliveryStatus };

const ATTEMPT_COLUMNS = `${selectList(WebhookAttemptEntity, ATTEMPT, 'a')},
  ${selectList(WebhookDeliveryEntity, ATTEMPT_DELIVERY, 'd')}, d.status AS "deliveryStatus"`;

/** Owns the queries of deliveries (which are also the workers' queue) and their attempts. */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly db: Database) {}

  /**
   * The SQL that creates one delivery per matching configuration, for the outbox to run in the statement that
   * records the event: a rolled-back change leaves none, a committed one leaves them pending, for the workers' next
   * claim. Its text is fixed, so the outbox can prepare it.
   */
  fanOut(input: FanOutInput): Sql {
    return sql`INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at)
       SELECT id, ${input.eventId}::uuid, ${input.eventType}::text, ${input.body}::text, now() FROM webhook_endpoints
       WHERE enabled
         AND (owner_address = ${input.address}::varchar OR owner_address = ANY(${input.operators}::varchar[]))
         AND ('*' = ANY(events) OR ${input.eventType}::text = ANY(events))
       ON CONFLICT (endpoint_id, event_id) DO NOTHING`;
  }

  /** Creates deliveries of one event to the given configurations, already held by the caller (no worker takes them). */
  async insertClaimed(
    tx: SqlExecutor,
    event: { id: string; type: string; body: string },
    endpointIds: readonly string[],
  ): Promise<ClaimedDelivery[]> {
    const { rows } = await tx.query<ClaimedRow>(
      `WITH d AS (
         INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, next_attempt_at, locked_until)
         SELECT id, $1, $2, $3, now(), now() + ${LEASE} FROM webhook_endpoints WHERE id = ANY($4::uuid[])
         RETURNING *
       )
       SELECT ${CLAIMED_COLUMNS} FROM d JOIN webhook_endpoints e ON e.id = d.endpoint_id`,
      [event.id, event.type, event.body, endpointIds],
    );
    return rows.map(claimed);
  }

  /**
   * Takes up to `limit` pending deliveries whose attempt is due and that no live claim holds, oldest due first.
   * `SKIP LOCKED` lets several worker processes claim at once without waiting on or taking each other's rows.
   */
  async claimDue(limit: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.db.queryPrepared<ClaimedRow>(
      'webhook_deliveries_claim_due',
      `UPDATE webhook_deliveries d SET locked_until = now() + ${LEASE}
       FROM webhook_endpoints e
       WHERE e.id = d.endpoint_id AND d.id IN (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       )
       RETURNING ${CLAIMED_COLUMNS}`,
      [limit],
    );
    return rows.map(claimed);
  }

  /** Takes one of the owner's deliveries whatever its status, for a manual re-send. */
  async claimOwned(
    ownerAddress: string,
    deliveryId: string,
  ): Promise<ClaimedDelivery | 'busy' | 'not_found'> {
    const { rows } = await this.db.query<ClaimedRow>(
      `UPDATE webhook_deliveries d SET locked_until = now() + ${LEASE}
       FROM webhook_endpoints e
       WHERE d.id = $1 AND e.id = d.endpoint_id AND e.owner_address = $2
         AND (d.locked_until IS NULL OR d.locked_until < now())
       RETURNING ${CLAIMED_COLUMNS}`,
      [deliveryId, ownerAddress],
    );
    if (rows[0]) return claimed(rows[0]);
    const exists = await this.db.query(
      `SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = $1 AND e.owner_address = $2`,
      [deliveryId, ownerAddress],
    );
    return exists.rowCount > 0 ? 'busy' : 'not_found';
  }

  /** Ends a held delivery without an attempt (its configuration was disabled meanwhile). */
  async abandon(deliveryId: string, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, locked_until = NULL,
         last_error = $2, updated_at = now()
       WHERE id = $1`,
      [deliveryId, reason],
    );
  }

  /**
   * Records an attempt and everything that follows from it in one transaction: the log line, the configuration's
   * health and the delivery's new state (for a retry, when it is due). Either all of it happens or none, so a crash
   * here leaves the delivery pending and claimed until its lease runs out; then a worker attempts it again.
   */
  async recordAttempt(record: AttemptRecord): Promise<WebhookDeliveryStatus> {
    const { delivery, outcome } = record;
    return this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO webhook_attempts
           (delivery_id, endpoint_id, attempted_at, success, status_code, duration_ms, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          delivery.id,
          delivery.endpointId,
          record.attemptedAt,
          outcome.success,
          outcome.statusCode,
          outcome.durationMs,
          outcome.error,
          outcome.responseBody,
        ],
      );
      const endpointEnabled = record.trackHealth
        ? await this.updateHealth(tx, delivery, outcome)
        : delivery.endpointEnabled;

      const last = [delivery.id, outcome.statusCode, outcome.error];
      const common = `attempt_count = attempt_count + 1, locked_until = NULL, last_status_code = $2,
        last_error = $3, updated_at = now()`;
      if (outcome.success) {
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL, ${common} WHERE id = $1`,
          last,
        );
        return 'succeeded';
      }
      const { afterFailure } = record;
      if (afterFailure === 'keep') {
        const { rows } = await tx.query<{ status: WebhookDeliveryStatus }>(
          `UPDATE webhook_deliveries SET ${common} WHERE id = $1 RETURNING status`,
          last,
        );
        return rows[0]!.status;
      }
      if (afterFailure === 'fail' || !endpointEnabled) {
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, ${common} WHERE id = $1`,
          last,
        );
        return 'failed';
      }
      // Scheduled in database time, as claims compare it, so clock skew between hosts cannot matter.
      await tx.query(
        `UPDATE webhook_deliveries
         SET status = 'pending', next_attempt_at = now() + $4 * interval '1 millisecond', ${common}
         WHERE id = $1`,
        [...last, afterFailure.retryInMs],
      );
      return 'pending';
    });
  }

  /**
   * Records successful scheduled attempts, many in one statement (so in one transaction): their log lines, their
   * deliveries succeeded and the end of any failing streak of their configurations.
   */
  async recordSuccesses(records: readonly SuccessRecord[]): Promise<void> {
    if (records.length === 0) return;
    const column = <T>(pick: (record: SuccessRecord) => T): T[] => records.map(pick);
    await this.db.queryPrepared(
      'webhook_deliveries_record_successes',
      `WITH attempt AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[], $5::int[], $6::text[])
           AS u(delivery_id, endpoint_id, attempted_at, status_code, duration_ms, response_body)
       ), logged AS (
         INSERT INTO webhook_attempts
           (delivery_id, endpoint_id, attempted_at, success, status_code, duration_ms, error, response_body)
         SELECT delivery_id, endpoint_id, attempted_at, true, status_code, duration_ms, NULL, response_body FROM attempt
       ), delivered AS (
         UPDATE webhook_deliveries d SET status = 'succeeded', next_attempt_at = NULL,
           attempt_count = d.attempt_count + 1, locked_until = NULL, last_status_code = attempt.status_code,
           last_error = NULL, updated_at = now()
         FROM attempt WHERE d.id = attempt.delivery_id
       )
       UPDATE webhook_endpoints SET failing_since = NULL
       WHERE id IN (SELECT endpoint_id FROM attempt) AND failing_since IS NOT NULL`,
      [
        column((r) => r.delivery.id),
        column((r) => r.delivery.endpointId),
        column((r) => r.attemptedAt),
        column((r) => r.outcome.statusCode),
        column((r) => r.outcome.durationMs),
        column((r) => r.outcome.responseBody),
      ],
    );
  }

  /** The owner's most recent attempts, newest first, optionally of one configuration. */
  async listAttempts(
    ownerAddress: string,
    endpointId: string | undefined,
    page: PageRequest,
  ): Promise<Page<WebhookAttemptRecord>> {
    const sql = pageSql('a.attempted_at', 'a.id', 'uuid', 3);
    const { rows } = await this.db.query<WebhookAttemptRecord & { position: PagePosition }>(
      `SELECT ${ATTEMPT_COLUMNS}, ${sql.select}
       FROM webhook_attempts a
       JOIN webhook_endpoints e ON e.id = a.endpoint_id
       JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE e.owner_address = $1 AND ($2::uuid IS NULL OR a.endpoint_id = $2) AND ${sql.where}
       ORDER BY a.attempted_at DESC, a.id DESC
       ${sql.limit}`,
      [ownerAddress, endpointId ?? null, ...pageParameters(page)],
    );
    return toPage(rows, page.limit);
  }

  /**
   * Applies an attempt to its configuration: a success ends a failing streak; a failure starts one, and a 410 or
   * five days of nothing but failures switches the configuration off. Returns whether it is still enabled. The row
   * is written only when something changes, so steady traffic to a healthy receiver does not queue on its lock.
   */
  private async updateHealth(
    tx: SqlExecutor,
    delivery: ClaimedDelivery,
    outcome: DeliveryOutcome,
  ): Promise<boolean> {
    if (outcome.success) {
      await tx.query(
        `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`,
        [delivery.endpointId],
      );
      return delivery.endpointEnabled;
    }
    const reason = `CASE WHEN $2::boolean THEN 'gone'
                         WHEN e.failing_since <= now() - interval '5 days' THEN 'failing' END`;
    const { rows } = await tx.query<{ enabled: boolean }>(
      `UPDATE webhook_endpoints e SET
         failing_since = coalesce(e.failing_since, now()),
         enabled = e.enabled AND ${reason} IS NULL,
         disabled_reason = CASE WHEN e.enabled THEN ${reason} ELSE e.disabled_reason END,
         updated_at = CASE WHEN e.enabled AND ${reason} IS NOT NULL THEN now() ELSE e.updated_at END
       WHERE e.id = $1 AND (e.failing_since IS NULL OR (e.enabled AND ${reason} IS NOT NULL))
       RETURNING e.enabled`,
      [delivery.endpointId, outcome.statusCode === 410],
    );
    return rows[0]?.enabled ?? delivery.endpointEnabled;
  }

  /** Deliveries waiting for an attempt, and the age of the oldest (the metrics read it when scraped). */
  async pendingStats(): Promise<{ depth: number; oldestSeconds: number }> {
    const { rows } = await this.db.query<{ depth: number; oldestSeconds: number | null }>(
      `SELECT count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS "oldestSeconds"
       FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return { depth: rows[0]?.depth ?? 0, oldestSeconds: rows[0]?.oldestSeconds ?? 0 };
  }
}
