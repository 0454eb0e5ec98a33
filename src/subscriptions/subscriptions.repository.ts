import { Injectable } from '@nestjs/common';
import { toPage, type Page, type PagePosition, type PageRequest } from '../common/pagination/cursor-page.js';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import { raw, sql, type Sql } from '../database/sql.js';
import { keysetPage } from '../database/keyset-page.js';
import type { PaymentCredit, TransferReference } from './payment/payment-gateway.js';
import type { PaymentEntity } from './payment/payment.entity.js';
import { PaymentErrors } from './payment/payment.errors.js';
import { SYSTEM_ACTOR, SubscriptionEventEntity } from './subscription-event.entity.js';
import {
  cancelSubscription,
  coveredUntil,
  inForce,
  holdForCharge,
  paymentFailed,
  renewSubscription,
  startTrial,
  subscriptionStatus,
  type SubscriptionPeriodState,
} from './subscription-state.js';
import { SubscriptionEntity } from './subscription.entity.js';
import { SubscriptionErrors } from './subscriptions.errors.js';
import { DEFAULT_PLAN_ID } from '../plans/plan.js';
import { PlanErrors } from '../plans/plans.errors.js';

/** Every column of a subscription row, as the service works with it. */
export const STORED = [
  'address',
  'currentPeriodStart',
  'currentPeriodEnd',
  'cancelAtPeriodEnd',
  'canceledAt',
  'graceUntil',
  'expiryRecordedFor',
  'planId',
  'trialEnd',
  'pendingPlanId',
  'pendingPlanAt',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof SubscriptionEntity)[];

/** A subscription row as the service works with it: every column. */
export type StoredSubscription = Pick<SubscriptionEntity, (typeof STORED)[number]>;

const COLUMNS = raw(selectList(SubscriptionEntity, STORED));
/** The same, of the row `s` an UPDATE … FROM updates. */
const S_COLUMNS = raw(selectList(SubscriptionEntity, STORED, 's'));

/** A renewal's payment, as the history shows it. */
export type PaymentRow = Pick<
  PaymentEntity,
  'gateway' | 'amountMinor' | 'chainId' | 'token' | 'payer' | 'txHash' | 'logIndex'
>;

const EVENT_ROW = [
  'id',
  'type',
  'at',
  'actor',
  'previousPeriodEnd',
  'currentPeriodEnd',
  'previousPlanId',
  'planId',
] as const satisfies readonly (keyof SubscriptionEventEntity)[];

export type SubscriptionEventRow = Pick<SubscriptionEventEntity, (typeof EVENT_ROW)[number]> & {
  payment: PaymentRow | null;
};

const EVENT_COLUMNS = raw(selectList(SubscriptionEventEntity, EVENT_ROW, 'e'));

/** Who asked for a change, as the history records it. */
export interface Actor {
  /** Lowercase. */
  address: string;
  keyId: string | null;
}

/** Periods to credit: by a payment the gateway approved, or from another source (a zero-amount payment). */
export interface CreditWrite {
  /** Lowercase. */
  address: string;
  actor: Actor;
  idempotencyKey: string | null;
  /** The gateway that approved it, or the source that credits it, as the payment records it. */
  gateway: string;
  credit: PaymentCredit;
  /** One period, in milliseconds: the credit buys a whole number of them. */
  periodMs: number;
  /** The plan the periods are on (PeriodCredit.plan); null: the subscription's own. */
  plan: { id: string; archived: boolean } | null;
  /** The periods are a trial of `plan` (PeriodCredit.trial): taken once per (address, plan), ever. */
  trial: boolean;
  /** The period end the periods follow (PeriodCredit.paysAfter); null: the current one, or now once it ran out. */
  paysAfter: Date | null;
}

export interface CancelRequest {
  /** Lowercase. */
  address: string;
  actor: Actor;
  idempotencyKey: string | null;
  immediate: boolean;
}

/** A renewal's payment; its address is the subscription's. */
interface NewPayment {
  gateway: string;
  amountMinor: bigint;
  transfer: TransferReference | null;
  periodStart: Date;
  periodEnd: Date;
}

/** A change of plan scheduled for a period end. */
export interface PendingPlan {
  planId: string;
  at: Date;
}

/** A subscription's change as one statement writes it: the row's new state and its history entry. */
interface SubscriptionChange {
  /** Lowercase. */
  address: string;
  /** The plan of the period written. */
  planId: string;
  /** The change of plan scheduled after it (an insert has none). */
  pending: PendingPlan | null;
  state: SubscriptionPeriodState;
  expiryRecordedFor: Date | null;
  /** The database's clock once the row was locked: the row's `updated_at` and the entry's `at`. */
  now: Date;
  event: Pick<
    SubscriptionEventEntity,
    'type' | 'actor' | 'actorKeyId' | 'previousPeriodEnd' | 'idempotencyKey'
  >;
}

/**
 * What a history entry is written from: the event, when it took effect (`now`), the period end after it and, for a
 * plan entry, the plans.
 */
type HistoryEntry = Pick<SubscriptionChange, 'address' | 'now' | 'event'> & {
  state: Pick<SubscriptionPeriodState, 'currentPeriodEnd'>;
  plans?: { from: string; to: string };
};

/** A locked subscription (null: none yet) and the database's clock read once the lock was granted. */
export interface LockedSubscription {
  current: StoredSubscription | null;
  now: Date;
}

/** A credit as written: the row after it, at the clock of its lock, and the period end it replaced. */
export interface WrittenCredit {
  stored: StoredSubscription;
  /** The row before the credit (null: none yet). */
  previous: StoredSubscription | null;
  now: Date;
  previousPeriodEnd: Date | null;
  /**
   * The row as it was when its period had run out unrecorded: the credit recorded that expiry's history entry
   * first, and its `subscription.expired` event is the caller's to write, before the renewal's.
   */
  expired: StoredSubscription | null;
  /**
   * A scheduled change of plan that had fallen due unapplied: the credit applied it (its history entry) before
   * the renewal, and its `subscription.plan_changed` event is the caller's to write, after the expiry's.
   */
  planChanged: AppliedPlanChange | null;
}

/** A scheduled change of plan as it took effect. */
export interface AppliedPlanChange {
  from: string;
  to: string;
  /** When it took effect: the date it was scheduled for. */
  at: Date;
}

/** A change of plan asked for: who, and the row as it is locked. */
export interface PlanChangeWrite {
  /** Lowercase. */
  address: string;
  actor: Actor;
  idempotencyKey: string | null;
  locked: { current: StoredSubscription; now: Date };
}

/** The scheduled changes a sweep applied, each with the row after it, at the clock it read. */
export interface AppliedPlanChanges {
  applied: { stored: StoredSubscription; change: AppliedPlanChange }[];
  now: Date;
}

/** A cancel as written, or the row as it was when there was nothing to cancel. */
export type WrittenCancel =
  | { changed: false; stored: StoredSubscription; now: Date }
  | { changed: true; stored: StoredSubscription; now: Date; previousPeriodEnd: Date; immediate: boolean };

/** The periods whose expiry a sweep recorded, at the clock it read. */
export interface RecordedExpiries {
  expired: StoredSubscription[];
  now: Date;
}

/*
 * The change statements are composed of these fragments. A renewal is one statement: the row (CTE `s`), then its
 * payment (`p`) and history entry, each selecting from the CTE before it, so nothing is written after a row that
 * was not (an insert that met an existing row) or a payment that was refused. Values in a SELECT list carry casts:
 * there no target column gives them a type.
 */

function updateRow({
  address,
  planId,
  pending,
  state,
  expiryRecordedFor,
  now,
}: Omit<SubscriptionChange, 'event'>): Sql {
  return sql`UPDATE subscriptions
    SET plan_id = ${planId}, current_period_start = ${state.currentPeriodStart}, current_period_end = ${state.currentPeriodEnd},
        cancel_at_period_end = ${state.cancelAtPeriodEnd}, canceled_at = ${state.canceledAt}, trial_end = ${state.trialEnd},
        pending_plan_id = ${pending?.planId ?? null}, pending_plan_at = ${pending?.at ?? null},
        grace_until = ${state.graceUntil}, expiry_recorded_for = ${expiryRecordedFor}, updated_at = ${now}
    WHERE address = ${address}
    RETURNING ${COLUMNS}`;
}

/** Nothing when the row exists: a concurrent first renewal created it. */
function insertRow({ address, planId, state, expiryRecordedFor, now }: SubscriptionChange): Sql {
  return sql`INSERT INTO subscriptions
      (address, plan_id, current_period_start, current_period_end, cancel_at_period_end, canceled_at, trial_end,
       expiry_recorded_for, created_at, updated_at)
    VALUES (${address}, ${planId}, ${state.currentPeriodStart}, ${state.currentPeriodEnd}, ${state.cancelAtPeriodEnd},
      ${state.canceledAt}, ${state.trialEnd}, ${expiryRecordedFor}, ${now}, ${now})
    ON CONFLICT (address) DO NOTHING
    RETURNING ${COLUMNS}`;
}

/**
 * The payment of the row `s` wrote. The unique index ux_payments_transfer refuses a transfer credited before (no
 * row); a concurrent insert of the same transfer waits for the other transaction to commit or roll back.
 */
function insertPayment(
  address: string,
  { gateway, amountMinor, periodStart, periodEnd, transfer }: NewPayment,
): Sql {
  return sql`INSERT INTO payments
      (address, gateway, amount_minor, period_start, period_end, chain_id, token, payer, tx_hash, log_index)
    SELECT ${address}::varchar, ${gateway}::varchar, ${amountMinor.toString()}::numeric,
      ${periodStart}::timestamptz, ${periodEnd}::timestamptz, ${transfer?.chainId ?? null}::bigint,
      ${transfer?.token ?? null}::varchar, ${transfer?.payer ?? null}::varchar, ${transfer?.txHash ?? null}::varchar,
      ${transfer?.logIndex ?? null}::int
    FROM s
    ON CONFLICT DO NOTHING
    RETURNING id`;
}

/**
 * A history entry. `payment` ends its SELECT list: the payment it cites, and in a change statement what it is
 * written after (`id FROM p`: the payment `p` inserted, and only if it did; `NULL FROM s`: only if the row `s` was).
 */
function insertHistory({ address, state, now, event, plans }: HistoryEntry, payment: Sql): Sql {
  return sql`INSERT INTO subscription_events
      (address, type, at, actor, actor_key_id, previous_period_end, current_period_end, idempotency_key,
       previous_plan_id, plan_id, payment_id)
    SELECT ${address}::varchar, ${event.type}::varchar, ${now}::timestamptz, ${event.actor}::varchar,
      ${event.actorKeyId}::varchar, ${event.previousPeriodEnd}::timestamptz, ${state.currentPeriodEnd}::timestamptz,
      ${event.idempotencyKey}::varchar, ${plans?.from ?? null}::varchar, ${plans?.to ?? null}::varchar, ${payment}`;
}

/** The history entry of a scheduled change that took effect, dated when it was scheduled for. */
function appliedChangeEntry(address: string, periodEnd: Date, change: AppliedPlanChange): HistoryEntry {
  return {
    address,
    state: { currentPeriodEnd: periodEnd },
    now: change.at,
    plans: { from: change.from, to: change.to },
    event: {
      type: 'plan_changed',
      actor: SYSTEM_ACTOR,
      actorKeyId: null,
      previousPeriodEnd: periodEnd,
      idempotencyKey: null,
    },
  };
}

/** A credit written with `row` (insertRow or updateRow): the row, its payment and its history entry. */
function renewalStatement(row: Sql, change: SubscriptionChange, payment: NewPayment): Sql {
  return sql`WITH s AS (${row}), p AS (${insertPayment(change.address, payment)}),
      h AS (${insertHistory(change, sql`id FROM p`)})
    SELECT s.*, (SELECT id FROM p) AS "paymentId" FROM s`;
}

/**
 * Owns the queries of subscriptions, their history and their payments. A change runs in the caller's transaction
 * with the row locked and returns rows: the state machine's result (subscription-state.ts) with its history entry
 * and payment; the services build the answer and the outbox event in the same transaction. Every time comes from
 * the database's clock, so that several instances agree on it.
 */
@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Whether any subscription is on `planId` or has it scheduled (PlanUsage): run in the plan update's transaction,
   * under the plan's row lock, which a subscription taking the plan holds FOR SHARE.
   */
  async planInUse(tx: SqlExecutor, planId: string): Promise<boolean> {
    const { rows } = await tx.run<{ used: boolean }>(
      sql`SELECT EXISTS (SELECT 1 FROM subscriptions WHERE plan_id = ${planId})
        OR EXISTS (SELECT 1 FROM subscriptions WHERE pending_plan_id = ${planId}) AS used`,
    );
    return rows[0]!.used;
  }

  /** The stored subscription of an address, or null. */
  async find(address: string): Promise<StoredSubscription | null> {
    const { rows } = await this.db.run<StoredSubscription>(
      sql`SELECT ${COLUMNS} FROM subscriptions WHERE address = ${address}`,
    );
    return rows[0] ?? null;
  }

  /**
   * Credits `write.credit`: the row lock with the clock, then the row with its payment and history entry in one
   * statement (a period that ran out unrecorded gets its expiry entry first). Round trips for an existing
   * subscription: the lock, the write. A first credit inserts the row instead (and locks again if a concurrent one
   * created it first). A transfer credited meanwhile is refused (409 payment_already_used).
   */
  async credit(tx: SqlExecutor, write: CreditWrite): Promise<WrittenCredit> {
    const { address } = write;
    const paidMs = write.periodMs * write.credit.periods;
    let { current, now } = await this.lock(tx, address);
    if (write.trial) return this.creditTrial(tx, write, paidMs, current, now);
    if (current === null) {
      const { next } = renewSubscription(null, now, paidMs);
      const planId = write.plan?.id ?? DEFAULT_PLAN_ID;
      if (write.plan?.archived) throw PlanErrors.archived();
      const first = {
        planId,
        pending: null,
        state: next,
        expiryRecordedFor: null,
        now,
        previousPeriodEnd: null,
      };
      const stored = await this.runCredit(tx, 'insert', write, first);
      if (stored !== null) {
        return { stored, previous: null, now, previousPeriodEnd: null, expired: null, planChanged: null };
      }
      // Of concurrent first renewals one inserts the row; the others lock it, and renew it as any other.
      ({ current, now } = await this.lock(tx, address));
      if (current === null) throw new Error(`subscription ${address} vanished while being renewed`);
    }
    const active = inForce(subscriptionStatus(current, now));
    const scheduled =
      current.pendingPlanId === null ? null : { planId: current.pendingPlanId, at: current.pendingPlanAt! };
    const changeDue = scheduled !== null && scheduled.at.getTime() <= now.getTime();
    // The plan the row is on once what fell due is applied, and the plan of the periods a renewal appends: while a
    // change is scheduled, the periods after the current end are the next plan's (the renewal bills them at its
    // price), and the change still takes effect at its date.
    const onPlan = changeDue ? scheduled.planId : current.planId;
    const renewsOn = scheduled?.planId ?? current.planId;
    const planId = write.plan?.id ?? renewsOn;
    if (planId !== renewsOn) {
      if (active) {
        throw scheduled && !changeDue
          ? SubscriptionErrors.planChangePending(scheduled.planId)
          : SubscriptionErrors.planChangeRequired();
      }
      if (write.plan?.archived) throw PlanErrors.archived();
    }
    // The period ran out but the sweep has not recorded it yet: record it now, before it is replaced.
    const expiryDue = !active && current.expiryRecordedFor?.getTime() !== current.currentPeriodEnd.getTime();
    if (expiryDue) await this.recordExpiry(tx, current);
    // Likewise a scheduled change that fell due and that the sweep has not applied yet, after the expiry it
    // coincides with.
    const planChanged = changeDue ? { from: current.planId, to: scheduled.planId, at: scheduled.at } : null;
    if (planChanged)
      await tx.run(
        insertHistory(appliedChangeEntry(address, current.currentPeriodEnd, planChanged), sql`NULL`),
      );
    const { next, previousPeriodEnd } = renewSubscription(current, now, paidMs, write.paysAfter ?? undefined);
    const expiryRecordedFor = expiryDue ? current.currentPeriodEnd : current.expiryRecordedFor;
    const stored = await this.runCredit(tx, 'update', write, {
      planId: active ? onPlan : planId,
      pending: active && !changeDue ? scheduled : null,
      state: next,
      expiryRecordedFor,
      now,
      previousPeriodEnd,
    });
    return {
      stored: stored!,
      previous: current,
      now,
      previousPeriodEnd,
      expired: expiryDue ? current : null,
      planChanged,
    };
  }

  /** Locks the row of `address` until the transaction ends, with the clock read once the lock was granted. */
  lockRow(tx: SqlExecutor, address: string): Promise<LockedSubscription> {
    return this.lock(tx, address);
  }

  /**
   * A change to a dearer plan, at once (decidePlanChange): the row on `planId` from `now` to `periodEnd`, with no
   * scheduled change left, and its `plan_changed` history entry.
   */
  async changePlanNow(
    tx: SqlExecutor,
    write: PlanChangeWrite,
    planId: string,
    periodEnd: Date,
  ): Promise<StoredSubscription> {
    const { current, now } = write.locked;
    const state = { ...current, currentPeriodStart: now, currentPeriodEnd: periodEnd };
    const change: SubscriptionChange = {
      address: write.address,
      planId,
      pending: null,
      state,
      expiryRecordedFor: current.expiryRecordedFor,
      now,
      event: this.planEvent('plan_changed', write, current.currentPeriodEnd),
    };
    const entry = { ...change, plans: { from: current.planId, to: planId } };
    const { rows } = await tx.runPrepared<StoredSubscription>(
      'subscriptions_change_plan',
      sql`WITH s AS (${updateRow(change)}), h AS (${insertHistory(entry, sql`NULL FROM s`)}) SELECT * FROM s`,
    );
    return rows[0]!;
  }

  /**
   * Schedules a change of plan (`pending`), or drops the one scheduled (null), with its history entry
   * (`plan_scheduled` naming the plan scheduled, `plan_unscheduled` naming the plan dropped).
   */
  async schedulePlan(
    tx: SqlExecutor,
    write: PlanChangeWrite,
    pending: PendingPlan | null,
  ): Promise<StoredSubscription> {
    const { current, now } = write.locked;
    const to = pending?.planId ?? current.pendingPlanId!;
    const entry: HistoryEntry = {
      address: write.address,
      state: current,
      now,
      plans: { from: current.planId, to },
      event: this.planEvent(pending ? 'plan_scheduled' : 'plan_unscheduled', write, current.currentPeriodEnd),
    };
    const { rows } = await tx.runPrepared<StoredSubscription>(
      'subscriptions_schedule_plan',
      sql`WITH s AS (
          UPDATE subscriptions SET pending_plan_id = ${pending?.planId ?? null}, pending_plan_at = ${pending?.at ?? null},
            updated_at = ${now}
          WHERE address = ${write.address} RETURNING ${COLUMNS}),
        h AS (${insertHistory(entry, sql`NULL FROM s`)})
        SELECT * FROM s`,
    );
    return rows[0]!;
  }

  /**
   * Applies up to `limit` scheduled changes whose date has come, each with its `plan_changed` history entry, and
   * returns them (each one's events are the caller's to write in the same transaction); one whose period ended with
   * it waits for the expiry sweep to record that expiry. Rows another transaction
   * holds are skipped and a claimed row's change is cleared in the statement that claims it, so concurrent sweeps on
   * several instances apply each change once.
   */
  async applyDuePlanChanges(tx: SqlExecutor, limit: number): Promise<AppliedPlanChanges> {
    const now = await this.clock(tx);
    // A period that ended with the change has its expiry recorded first, so that the expiry's events name the
    // features that ended (the old plan's), in the order a renewal records them.
    const { rows } = await tx.run<StoredSubscription & { previousPlanId: string; effectiveAt: Date }>(
      sql`UPDATE subscriptions s
        SET plan_id = d.pending_plan_id, pending_plan_id = NULL, pending_plan_at = NULL, updated_at = ${now}
        FROM (
          SELECT address, plan_id, pending_plan_id, pending_plan_at FROM subscriptions
          WHERE pending_plan_id IS NOT NULL AND pending_plan_at <= ${now}
            AND (current_period_end > pending_plan_at OR expiry_recorded_for = current_period_end)
          ORDER BY pending_plan_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED) AS d
        WHERE s.address = d.address
        RETURNING ${S_COLUMNS}, d.plan_id AS "previousPlanId",
          d.pending_plan_at AS "effectiveAt"`,
    );
    const applied = [];
    for (const { previousPlanId, effectiveAt, ...stored } of rows) {
      const change = { from: previousPlanId, to: stored.planId, at: effectiveAt };
      await tx.run(
        insertHistory(appliedChangeEntry(stored.address, stored.currentPeriodEnd, change), sql`NULL`),
      );
      applied.push({ stored, change });
    }
    return { applied, now };
  }

  private planEvent(
    type: 'plan_changed' | 'plan_scheduled' | 'plan_unscheduled',
    write: PlanChangeWrite,
    previousPeriodEnd: Date,
  ): SubscriptionChange['event'] {
    return {
      type,
      actor: write.actor.address,
      actorKeyId: write.actor.keyId,
      previousPeriodEnd,
      idempotencyKey: write.idempotencyKey,
    };
  }

  /** Whether `address` has taken its trial of `planId` (a trial is one per wallet and plan, ever). */
  async trialTaken(address: string, planId: string): Promise<boolean> {
    const { rows } = await this.db.run<{ taken: boolean }>(
      sql`SELECT EXISTS (SELECT 1 FROM subscription_trials WHERE address = ${address} AND plan_id = ${planId}) AS taken`,
    );
    return rows[0]!.taken;
  }

  /**
   * {@link credit} of a trial (startTrial decides, under the row lock): only a subscription not in force starts one,
   * and only if the (address, plan) row of subscription_trials can be inserted, which a concurrent trial of the same
   * plan waits on and then finds taken. Either refusal is 409 trial_unavailable, and the caller's transaction rolls
   * back (the claim with it).
   */
  private async creditTrial(
    tx: SqlExecutor,
    write: CreditWrite,
    trialMs: number,
    locked: StoredSubscription | null,
    lockedAt: Date,
  ): Promise<WrittenCredit> {
    const { address, plan } = write;
    if (plan === null) throw new TypeError('a trial credit names its plan');
    if (plan.archived) throw PlanErrors.archived();
    let current = locked;
    let now = lockedAt;
    let claimed = false;
    for (;;) {
      const started = startTrial(current, now, trialMs);
      if (started === null) throw SubscriptionErrors.trialUnavailable();
      if (!claimed) {
        claimed = await this.claimTrial(tx, address, plan.id, now, started.next.trialEnd!);
        if (!claimed) throw SubscriptionErrors.trialUnavailable();
      }
      const expiryDue =
        current !== null && current.expiryRecordedFor?.getTime() !== current.currentPeriodEnd.getTime();
      if (expiryDue) await this.recordExpiry(tx, current!);
      // A trial starts a subscription afresh: no scheduled change of plan carries into it.
      const to = {
        planId: plan.id,
        pending: null,
        state: started.next,
        expiryRecordedFor: expiryDue ? current!.currentPeriodEnd : (current?.expiryRecordedFor ?? null),
        now,
        previousPeriodEnd: started.previousPeriodEnd,
      };
      const stored = await this.runCredit(tx, current === null ? 'insert' : 'update', write, to);
      if (stored !== null) {
        const { previousPeriodEnd } = started;
        return {
          stored,
          previous: current,
          now,
          previousPeriodEnd,
          expired: expiryDue ? current : null,
          planChanged: null,
        };
      }
      // A concurrent first renewal created the row: lock it and decide again.
      ({ current, now } = await this.lock(tx, address));
    }
  }

  /** Inserts the (address, plan) trial row; false when the wallet took that plan's trial before. */
  private async claimTrial(
    tx: SqlExecutor,
    address: string,
    planId: string,
    startedAt: Date,
    trialEnd: Date,
  ): Promise<boolean> {
    const { rowCount } = await tx.run(
      sql`INSERT INTO subscription_trials (address, plan_id, started_at, trial_end)
        VALUES (${address}, ${planId}, ${startedAt}, ${trialEnd})
        ON CONFLICT (address, plan_id) DO NOTHING`,
    );
    return rowCount === 1;
  }

  /**
   * Cancels (cancelSubscription decides): the lock with the clock, then the row with its history entry. `changed`
   * is false when there was nothing to cancel; never subscribed: 404 subscription_not_found.
   */
  async cancel(tx: SqlExecutor, request: CancelRequest): Promise<WrittenCancel> {
    const { address, actor, immediate, idempotencyKey } = request;
    const { current, now } = await this.lock(tx, address);
    const outcome = cancelSubscription(current, now, immediate);
    if (outcome.kind === 'not_found' || current === null) throw SubscriptionErrors.notFound();
    if (outcome.kind === 'unchanged') return { changed: false, stored: current, now };
    const previousPeriodEnd = current.currentPeriodEnd;
    const scheduled =
      current.pendingPlanId === null ? null : { planId: current.pendingPlanId, at: current.pendingPlanAt! };
    const change: SubscriptionChange = {
      address,
      planId: current.planId,
      // A cancel now ends the period the change was scheduled after: nothing is left to change.
      pending: outcome.immediate ? null : scheduled,
      state: outcome.next,
      expiryRecordedFor: current.expiryRecordedFor,
      now,
      event: {
        type: 'canceled',
        actor: actor.address,
        actorKeyId: actor.keyId,
        previousPeriodEnd,
        idempotencyKey,
      },
    };
    const { rows } = await tx.runPrepared<StoredSubscription>(
      'subscriptions_cancel',
      sql`WITH s AS (${updateRow(change)}), h AS (${insertHistory(change, sql`NULL FROM s`)}) SELECT * FROM s`,
    );
    return { changed: true, stored: rows[0]!, now, previousPeriodEnd, immediate: outcome.immediate };
  }

  /**
   * Records that an automatic charge of the period after `periodEnd` failed (subscription-state.ts
   * `paymentFailed`): the row becomes `past_due` until `graceMs` after its period end, with a `payment_failed`
   * history entry. Null, and nothing written, when the subscription no longer ends at `periodEnd` (renewed
   * meanwhile) or is not to be renewed (over, canceled).
   */
  async paymentFailed(
    tx: SqlExecutor,
    address: string,
    periodEnd: Date,
    graceMs: number,
  ): Promise<{ stored: StoredSubscription; previous: StoredSubscription; now: Date } | null> {
    const { current, now } = await this.lock(tx, address);
    if (current === null || current.currentPeriodEnd.getTime() !== periodEnd.getTime()) return null;
    const next = paymentFailed(current, now, graceMs);
    if (next === null) return null;
    const change: SubscriptionChange = {
      address,
      planId: current.planId,
      // A scheduled change of plan stays scheduled: the grace does not move the period end.
      pending:
        current.pendingPlanId === null ? null : { planId: current.pendingPlanId, at: current.pendingPlanAt! },
      state: next,
      expiryRecordedFor: current.expiryRecordedFor,
      now,
      event: {
        type: 'payment_failed',
        actor: SYSTEM_ACTOR,
        actorKeyId: null,
        previousPeriodEnd: current.currentPeriodEnd,
        idempotencyKey: null,
      },
    };
    const { rows } = await tx.runPrepared<StoredSubscription>(
      'subscriptions_payment_failed',
      sql`WITH s AS (${updateRow(change)}), h AS (${insertHistory(change, sql`NULL FROM s`)}) SELECT * FROM s`,
    );
    return { stored: rows[0]!, previous: current, now };
  }

  /**
   * Keeps the subscription in force while a charge of the period after `periodEnd` waits for the chain
   * (subscription-state.ts `holdForCharge`): the row's grace is set, with no history entry (nothing failed). False,
   * and nothing written, when there is nothing to hold: renewed meanwhile, canceled, already in a grace, or its
   * expiry already recorded (then told of: the charge, once confirmed, still pays the period after `periodEnd`).
   */
  async holdForCharge(tx: SqlExecutor, address: string, periodEnd: Date, graceMs: number): Promise<boolean> {
    const { current, now } = await this.lock(tx, address);
    if (current === null || current.expiryRecordedFor?.getTime() === current.currentPeriodEnd.getTime()) {
      return false;
    }
    const next = holdForCharge(current, now, periodEnd, graceMs);
    if (next === null) return false;
    const pending =
      current.pendingPlanId === null ? null : { planId: current.pendingPlanId, at: current.pendingPlanAt! };
    await tx.runPrepared(
      'subscriptions_hold_for_charge',
      updateRow({
        address,
        planId: current.planId,
        pending,
        state: next,
        expiryRecordedFor: current.expiryRecordedFor,
        now,
      }),
    );
    return true;
  }

  /** Whether a charge of the period after `periodEnd` was recorded as failed (a `payment_failed` history entry). */
  async paymentFailedAfter(tx: SqlExecutor, address: string, periodEnd: Date): Promise<boolean> {
    const { rows } = await tx.run<{ failed: boolean }>(
      sql`SELECT EXISTS (SELECT 1 FROM subscription_events
            WHERE address = ${address} AND type = 'payment_failed' AND previous_period_end = ${periodEnd}) AS failed`,
    );
    return rows[0]!.failed;
  }

  /**
   * Records the history entry of every period that ended and whose expiry is not recorded yet, up to `limit` of
   * them, and returns their rows (each one's `subscription.expired` event is the caller's to write in the same
   * transaction). Safe to run on several instances at once (claimDueExpiries).
   */
  async recordDueExpiries(tx: SqlExecutor, limit: number): Promise<RecordedExpiries> {
    const now = await this.clock(tx);
    const expired = await this.claimDueExpiries(tx, now, limit);
    for (const subscription of expired) await this.recordExpiry(tx, subscription);
    return { expired, now };
  }

  /** One page of the subscription's history, newest first. */
  async history(address: string, page: PageRequest): Promise<Page<SubscriptionEventRow>> {
    const keyset = keysetPage({ time: 'e.at', tiebreaker: 'e.seq', tiebreakerType: 'bigint' }, page);
    const { rows } = await this.db.run<SubscriptionEventRow & { position: PagePosition }>(
      sql`SELECT ${EVENT_COLUMNS},
         CASE WHEN p.id IS NULL THEN NULL ELSE json_build_object(
           'gateway', p.gateway, 'amountMinor', p.amount_minor::text, 'chainId', p.chain_id::text, 'token', p.token,
           'payer', p.payer, 'txHash', p.tx_hash, 'logIndex', p.log_index) END AS payment, ${keyset.position}
       FROM subscription_events e LEFT JOIN payments p ON p.id = e.payment_id
       WHERE e.address = ${address} AND ${keyset.after}
       ORDER BY e.at DESC, e.seq DESC ${keyset.limit}`,
    );
    return toPage(rows, page.limit);
  }

  /** The log indexes of a transaction's transfers already credited. */
  async creditedTransfers(tx: SqlExecutor, chainId: number, txHash: string): Promise<Set<number>> {
    const { rows } = await tx.run<{ logIndex: number }>(
      sql`SELECT log_index AS "logIndex" FROM payments WHERE chain_id = ${chainId} AND tx_hash = ${txHash}`,
    );
    return new Set(rows.map((row) => row.logIndex));
  }

  /**
   * The first credit whose transfer was not credited before (a transaction may hold several qualifying
   * transfers, each paying once). Read before the row lock, so a concurrent renewal can still take it: the
   * payment's unique index then refuses the later one.
   */
  async firstUncredited(tx: SqlExecutor, credits: readonly PaymentCredit[]): Promise<PaymentCredit> {
    const transfer = credits[0]?.transfer;
    if (!transfer) return credits[0]!;
    const credited = await this.creditedTransfers(tx, transfer.chainId, transfer.txHash);
    const credit = credits.find((candidate) => !credited.has(candidate.transfer!.logIndex));
    if (credit === undefined) throw PaymentErrors.alreadyUsed(transfer.txHash);
    return credit;
  }

  /**
   * Writes a credit to `to.state`: the row (inserted, or updated once locked), its payment and its
   * history entry, in one statement. Null when an insert met an existing row. A payment refused by the unique index
   * (its transfer was credited meanwhile by a concurrent renewal) is a 409: the caller's transaction rolls back.
   */
  private async runCredit(
    tx: SqlExecutor,
    write: 'insert' | 'update',
    { address, actor, idempotencyKey, gateway, credit, periodMs }: CreditWrite,
    to: Pick<SubscriptionChange, 'planId' | 'pending' | 'state' | 'expiryRecordedFor' | 'now'> & {
      previousPeriodEnd: Date | null;
    },
  ): Promise<StoredSubscription | null> {
    const change: SubscriptionChange = {
      address,
      planId: to.planId,
      pending: to.pending,
      state: to.state,
      expiryRecordedFor: to.expiryRecordedFor,
      now: to.now,
      event: {
        type: 'renewed',
        actor: actor.address,
        actorKeyId: actor.keyId,
        previousPeriodEnd: to.previousPeriodEnd,
        idempotencyKey,
      },
    };
    // The periods paid end where the new period does.
    const periodEnd = to.state.currentPeriodEnd;
    const payment: NewPayment = {
      gateway,
      amountMinor: credit.amountMinor,
      transfer: credit.transfer,
      periodStart: new Date(periodEnd.getTime() - periodMs * credit.periods),
      periodEnd,
    };
    const row = write === 'insert' ? insertRow(change) : updateRow(change);
    const { rows } = await tx.runPrepared<StoredSubscription & { paymentId: string | null }>(
      `subscriptions_${write}_renewal`,
      renewalStatement(row, change, payment),
    );
    if (rows[0] === undefined) return null;
    const { paymentId, ...stored } = rows[0];
    if (paymentId === null) throw PaymentErrors.alreadyUsed(payment.transfer!.txHash);
    return stored;
  }

  /**
   * Reads the subscription and locks it until the transaction ends (changes of one address run one at a time),
   * with the clock read once the lock is granted: the outer projection runs after the lateral subquery locked its
   * row, so `now` orders the changes of one subscription the way they took effect. Always one row, so the clock
   * comes back when the subscription does not exist yet.
   */
  private async lock(tx: SqlExecutor, address: string): Promise<LockedSubscription> {
    const { rows } = await tx.runPrepared<Partial<StoredSubscription> & { now: Date }>(
      'subscriptions_lock',
      sql`SELECT l.*, clock_timestamp() AS now
       FROM (SELECT 1) AS one
       LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM subscriptions WHERE address = ${address} FOR UPDATE) AS l ON true`,
    );
    const { now, ...row } = rows[0]!;
    return { now, current: row.address === null ? null : (row as StoredSubscription) };
  }

  /**
   * The database's current time, for the expiry sweep. A change reads its clock with its row lock instead (`lock`),
   * so that the clock orders the changes of one subscription the way they took effect.
   */
  private async clock(tx: SqlExecutor): Promise<Date> {
    const { rows } = await tx.run<{ now: Date }>(sql`SELECT clock_timestamp() AS now`);
    return rows[0]!.now;
  }

  /**
   * Claims up to `limit` subscriptions whose period ended by `now` and whose expiry is not recorded yet, marking it
   * recorded in the same statement. Rows another transaction holds are skipped, and a row is re-checked once its
   * lock is granted, so concurrent sweeps on several instances never claim the same period end twice.
   */
  private async claimDueExpiries(tx: SqlExecutor, now: Date, limit: number): Promise<StoredSubscription[]> {
    const { rows } = await tx.run<StoredSubscription>(
      sql`UPDATE subscriptions SET expiry_recorded_for = current_period_end
       WHERE address IN (
         SELECT address FROM subscriptions
         WHERE current_period_end <= ${now} AND (grace_until IS NULL OR grace_until <= ${now})
           AND expiry_recorded_for IS DISTINCT FROM current_period_end
         ORDER BY current_period_end
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
    );
    return rows;
  }

  /**
   * The history entry of a period that ran out. The caller marks `expiry_recorded_for` and writes the
   * `subscription.expired` event in the same transaction, which makes both exactly-once per period end.
   */
  private async recordExpiry(tx: SqlExecutor, subscription: StoredSubscription): Promise<void> {
    const end = subscription.currentPeriodEnd;
    // Dated at the period end (or the end of its grace), whenever the sweep comes by.
    const expiry: HistoryEntry = {
      address: subscription.address,
      state: subscription,
      now: coveredUntil(subscription),
      event: {
        type: 'expired',
        actor: SYSTEM_ACTOR,
        actorKeyId: null,
        previousPeriodEnd: end,
        idempotencyKey: null,
      },
    };
    await tx.run(insertHistory(expiry, sql`NULL`));
  }
}
