import { Injectable } from '@nestjs/common';
import {
  pageParameters,
  pageSql,
  toPage,
  type Page,
  type PagePosition,
  type PageRequest,
} from '../common/pagination/cursor-page.js';
import { Database, type SqlExecutor } from '../database/database.service.js';
import { selectList } from '../database/select-list.js';
import type { TransferReference } from './payment/payment-gateway.js';
import type { PaymentEntity } from './payment/payment.entity.js';
import type { SubscriptionPeriodState } from './subscription-state.js';
import { SubscriptionEventEntity } from './subscription-event.entity.js';
import { SubscriptionEntity } from './subscription.entity.js';

const STORED = [
  'address',
  'currentPeriodStart',
  'currentPeriodEnd',
  'cancelAtPeriodEnd',
  'canceledAt',
  'expiryRecordedFor',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof SubscriptionEntity)[];

/** A subscription row as the service works with it: every column. */
export type StoredSubscription = Pick<SubscriptionEntity, (typeof STORED)[number]>;

const COLUMNS = selectList(SubscriptionEntity, STORED);

/** The period state's columns, in table order: start, end, cancel at period end, canceled at. */
const stateParameters = (state: SubscriptionPeriodState): unknown[] => [
  state.currentPeriodStart,
  state.currentPeriodEnd,
  state.cancelAtPeriodEnd,
  state.canceledAt,
];

export type NewSubscriptionEvent = Pick<
  SubscriptionEventEntity,
  | 'address'
  | 'type'
  | 'at'
  | 'actor'
  | 'actorKeyId'
  | 'previousPeriodEnd'
  | 'currentPeriodEnd'
  | 'idempotencyKey'
> &
  /** The payment a renewal recorded. */
  Partial<Pick<SubscriptionEventEntity, 'paymentId'>>;

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
] as const satisfies readonly (keyof SubscriptionEventEntity)[];

export type SubscriptionEventRow = Pick<SubscriptionEventEntity, (typeof EVENT_ROW)[number]> & {
  payment: PaymentRow | null;
};

const EVENT_COLUMNS = selectList(SubscriptionEventEntity, EVENT_ROW, 'e');

/** A renewal's payment; its address is the subscription's. */
export interface NewPayment {
  gateway: string;
  amountMinor: bigint;
  transfer: TransferReference | null;
  periodStart: Date;
  periodEnd: Date;
}

/** A subscription's change as one statement writes it: the row's new state and its history entry. */
export interface SubscriptionChange {
  /** Lowercase. */
  address: string;
  state: SubscriptionPeriodState;
  expiryRecordedFor: Date | null;
  /** The database's clock once the row was locked: the row's `updated_at` and the entry's `at`. */
  now: Date;
  event: Pick<NewSubscriptionEvent, 'type' | 'actor' | 'actorKeyId' | 'previousPeriodEnd' | 'idempotencyKey'>;
}

/** A locked subscription (null: none yet) and the database's clock read once the lock was granted. */
export interface LockedSubscription {
  current: StoredSubscription | null;
  now: Date;
}

/** A renewal as written: the row after it, and its payment's id (null: the transfer was credited before). */
export interface Renewal {
  stored: StoredSubscription;
  paymentId: string | null;
}

function renewal(row: StoredSubscription & { paymentId: string | null }): Renewal {
  const { paymentId, ...stored } = row;
  return { stored, paymentId };
}

/*
 * The pieces of the change statements, one parameter layout for all: $1–$7 the row (changeParameters), $8–$12 the
 * history entry, $13–$21 the payment (paymentParameters). The history and payment inserts select from the CTE
 * before them, so nothing is written after a row that was not (an insert that met an existing row) or a payment
 * that was refused. Parameters in a SELECT list carry casts: there no target column gives them a type.
 */
const UPDATE_ROW = `UPDATE subscriptions
  SET current_period_start = $2, current_period_end = $3, cancel_at_period_end = $4, canceled_at = $5,
      expiry_recorded_for = $6, updated_at = $7
  WHERE address = $1
  RETURNING ${COLUMNS}`;

const INSERT_ROW = `INSERT INTO subscriptions
    (address, current_period_start, current_period_end, cancel_at_period_end, canceled_at, expiry_recorded_for,
     created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
  ON CONFLICT (address) DO NOTHING
  RETURNING ${COLUMNS}`;

// The unique index ux_payments_transfer refuses a transfer credited before; a concurrent insert of the same
// transfer waits for the other transaction to commit or roll back.
const PAYMENT = `INSERT INTO payments
    (address, gateway, amount_minor, period_start, period_end, chain_id, token, payer, tx_hash, log_index)
  SELECT $1::varchar, $13::varchar, $14::numeric, $15::timestamptz, $16::timestamptz, $17::bigint, $18::varchar,
         $19::varchar, $20::varchar, $21::int
  FROM s
  ON CONFLICT DO NOTHING
  RETURNING id`;

/** Completed by the payment's id and its source: `id FROM p` (a renewal cites its payment) or `NULL FROM s`. */
const HISTORY = `INSERT INTO subscription_events
    (address, type, at, actor, actor_key_id, previous_period_end, current_period_end, idempotency_key, payment_id)
  SELECT $1::varchar, $8::varchar, $7::timestamptz, $9::varchar, $10::varchar, $11::timestamptz,
         $3::timestamptz, $12::varchar`;

/** A renewal written with `row` (INSERT_ROW or UPDATE_ROW): the row, then its payment and history entry. */
const renewalStatement = (row: string): string =>
  `WITH s AS (${row}), p AS (${PAYMENT}), h AS (${HISTORY}, id FROM p)
   SELECT s.*, (SELECT id FROM p) AS "paymentId" FROM s`;

const changeParameters = ({
  address,
  state,
  expiryRecordedFor,
  now,
  event,
}: SubscriptionChange): unknown[] => [
  address,
  ...stateParameters(state),
  expiryRecordedFor,
  now,
  event.type,
  event.actor,
  event.actorKeyId,
  event.previousPeriodEnd,
  event.idempotencyKey,
];

const paymentParameters = (payment: NewPayment): unknown[] => {
  const { transfer } = payment;
  return [
    payment.gateway,
    payment.amountMinor.toString(),
    payment.periodStart,
    payment.periodEnd,
    transfer?.chainId ?? null,
    transfer?.token ?? null,
    transfer?.payer ?? null,
    transfer?.txHash ?? null,
    transfer?.logIndex ?? null,
  ];
};

/**
 * Owns the queries of subscriptions, their history and their payments. Every time comes from the database's
 * clock, so that several instances agree on it. Writes take a transaction's executor: a change, its history entry,
 * its payment and its outbox event commit together.
 */
@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly db: Database) {}

  /**
   * The database's current time, for the expiry sweep. A change reads its clock with its row lock instead (`lock`),
   * so that the clock orders the changes of one subscription the way they took effect.
   */
  async clock(tx: SqlExecutor): Promise<Date> {
    const { rows } = await tx.query<{ now: Date }>(`SELECT clock_timestamp() AS now`);
    return rows[0]!.now;
  }

  /** The stored subscription of an address, or null. */
  async find(address: string): Promise<StoredSubscription | null> {
    const { rows } = await this.db.query<StoredSubscription>(
      `SELECT ${COLUMNS} FROM subscriptions WHERE address = $1`,
      [address],
    );
    return rows[0] ?? null;
  }

  /**
   * Reads the subscription and locks it until the transaction ends (changes of one address run one at a time),
   * with the clock read once the lock is granted: the outer projection runs after the lateral subquery locked its
   * row, so `now` orders the changes of one subscription the way they took effect. Always one row, so the clock
   * comes back when the subscription does not exist yet.
   */
  async lock(tx: SqlExecutor, address: string): Promise<LockedSubscription> {
    const { rows } = await tx.queryPrepared<Partial<StoredSubscription> & { now: Date }>(
      'subscriptions_lock',
      `SELECT l.*, clock_timestamp() AS now
       FROM (SELECT 1) AS one
       LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM subscriptions WHERE address = $1 FOR UPDATE) AS l ON true`,
      [address],
    );
    const { now, ...row } = rows[0]!;
    return { now, current: row.address === null ? null : (row as StoredSubscription) };
  }

  /**
   * Writes a first renewal: the row, its payment and its history entry, in one statement. Null when the row exists
   * (a concurrent first renewal created it; the caller then locks it). `paymentId` is null when the payment's
   * transfer was credited before: the caller must roll back.
   */
  async insertRenewal(
    tx: SqlExecutor,
    change: SubscriptionChange,
    payment: NewPayment,
  ): Promise<Renewal | null> {
    return this.writeRenewal(tx, 'subscriptions_insert_renewal', INSERT_ROW, change, payment);
  }

  /** `insertRenewal` of a locked row that exists: the same statement with an update, so never null. */
  async updateRenewal(tx: SqlExecutor, change: SubscriptionChange, payment: NewPayment): Promise<Renewal> {
    return (await this.writeRenewal(tx, 'subscriptions_update_renewal', UPDATE_ROW, change, payment))!;
  }

  /** Writes a locked row's change that pays nothing (a cancel) and its history entry, in one statement. */
  async updateUnpaid(tx: SqlExecutor, change: SubscriptionChange): Promise<StoredSubscription> {
    const { rows } = await tx.queryPrepared<StoredSubscription>(
      'subscriptions_update_unpaid',
      `WITH s AS (${UPDATE_ROW}), h AS (${HISTORY}, NULL FROM s) SELECT * FROM s`,
      changeParameters(change),
    );
    return rows[0]!;
  }

  /**
   * Claims up to `limit` subscriptions whose period ended by `now` and whose expiry is not recorded yet, marking it
   * recorded in the same statement. Rows another transaction holds are skipped, and a row is re-checked once its
   * lock is granted, so concurrent sweeps on several instances never claim the same period end twice.
   */
  async claimDueExpiries(tx: SqlExecutor, now: Date, limit: number): Promise<StoredSubscription[]> {
    const { rows } = await tx.query<StoredSubscription>(
      `UPDATE subscriptions SET expiry_recorded_for = current_period_end
       WHERE address IN (
         SELECT address FROM subscriptions
         WHERE current_period_end <= $1 AND expiry_recorded_for IS DISTINCT FROM current_period_end
         ORDER BY current_period_end
         LIMIT $2
         FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [now, limit],
    );
    return rows;
  }

  async insertEvent(tx: SqlExecutor, event: NewSubscriptionEvent): Promise<void> {
    await tx.query(
      `INSERT INTO subscription_events
         (address, type, at, actor, actor_key_id, previous_period_end, current_period_end, idempotency_key,
          payment_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        event.address,
        event.type,
        event.at,
        event.actor,
        event.actorKeyId,
        event.previousPeriodEnd,
        event.currentPeriodEnd,
        event.idempotencyKey,
        event.paymentId ?? null,
      ],
    );
  }

  /** The subscription's history, newest first: all of it, or one page. */
  async history(address: string): Promise<SubscriptionEventRow[]>;
  async history(address: string, page: PageRequest): Promise<Page<SubscriptionEventRow>>;
  async history(
    address: string,
    page?: PageRequest,
  ): Promise<SubscriptionEventRow[] | Page<SubscriptionEventRow>> {
    const sql = page && pageSql('e.at', 'e.seq', 'bigint', 2);
    const { rows } = await this.db.query<SubscriptionEventRow & { position: PagePosition }>(
      `SELECT ${EVENT_COLUMNS},
         CASE WHEN p.id IS NULL THEN NULL ELSE json_build_object(
           'gateway', p.gateway, 'amountMinor', p.amount_minor::text, 'chainId', p.chain_id::text, 'token', p.token,
           'payer', p.payer, 'txHash', p.tx_hash, 'logIndex', p.log_index) END AS payment
         ${sql ? `, ${sql.select}` : ''}
       FROM subscription_events e LEFT JOIN payments p ON p.id = e.payment_id
       WHERE e.address = $1 ${sql ? `AND ${sql.where}` : ''}
       ORDER BY e.at DESC, e.seq DESC ${sql ? sql.limit : ''}`,
      page ? [address, ...pageParameters(page)] : [address],
    );
    return page ? toPage(rows, page.limit) : rows;
  }

  private async writeRenewal(
    tx: SqlExecutor,
    name: string,
    row: string,
    change: SubscriptionChange,
    payment: NewPayment,
  ): Promise<Renewal | null> {
    const { rows } = await tx.queryPrepared<StoredSubscription & { paymentId: string | null }>(
      name,
      renewalStatement(row),
      [...changeParameters(change), ...paymentParameters(payment)],
    );
    return rows[0] ? renewal(rows[0]) : null;
  }

  /** The log indexes of a transaction's transfers already credited. */
  async creditedTransfers(tx: SqlExecutor, chainId: number, txHash: string): Promise<Set<number>> {
    const { rows } = await tx.query<{ logIndex: number }>(
      `SELECT log_index AS "logIndex" FROM payments WHERE chain_id = $1 AND tx_hash = $2`,
      [chainId, txHash],
    );
    return new Set(rows.map((row) => row.logIndex));
  }
}
