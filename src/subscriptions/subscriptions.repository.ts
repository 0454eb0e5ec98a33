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

export interface NewPayment {
  /** Lowercase. */
  address: string;
  gateway: string;
  amountMinor: bigint;
  transfer: TransferReference | null;
  periodStart: Date;
  periodEnd: Date;
}

/**
 * Owns the queries of subscriptions, their history and their payments. Every time comes from the database's
 * clock, so that several instances agree on it. Writes take a transaction's executor: a change, its history entry,
 * its payment and its outbox event commit together.
 */
@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly db: Database) {}

  /**
   * The database's current time. `clock_timestamp()`, not `now()`: taken after a row lock was granted, it orders
   * the changes of one subscription the way they took effect.
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

  /** Creates the subscription unless it exists; null when it did (the caller then locks it). */
  async insertIfAbsent(
    tx: SqlExecutor,
    address: string,
    state: SubscriptionPeriodState,
    now: Date,
  ): Promise<StoredSubscription | null> {
    const { rows } = await tx.query<StoredSubscription>(
      `INSERT INTO subscriptions
         (address, current_period_start, current_period_end, cancel_at_period_end, canceled_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (address) DO NOTHING
       RETURNING ${COLUMNS}`,
      [address, ...stateParameters(state), now],
    );
    return rows[0] ?? null;
  }

  /** Reads the subscription and locks it until the transaction ends: changes of one address run one at a time. */
  async lock(tx: SqlExecutor, address: string): Promise<StoredSubscription | null> {
    const { rows } = await tx.query<StoredSubscription>(
      `SELECT ${COLUMNS} FROM subscriptions WHERE address = $1 FOR UPDATE`,
      [address],
    );
    return rows[0] ?? null;
  }

  /** Writes a locked subscription's new state. */
  async update(
    tx: SqlExecutor,
    address: string,
    state: SubscriptionPeriodState,
    expiryRecordedFor: Date | null,
    now: Date,
  ): Promise<StoredSubscription> {
    const { rows } = await tx.query<StoredSubscription>(
      `UPDATE subscriptions
       SET current_period_start = $2, current_period_end = $3, cancel_at_period_end = $4, canceled_at = $5,
           expiry_recorded_for = $6, updated_at = $7
       WHERE address = $1
       RETURNING ${COLUMNS}`,
      [address, ...stateParameters(state), expiryRecordedFor, now],
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

  /**
   * Records a payment; returns its id, or null when its transfer was credited before (the unique index
   * `ux_payments_transfer`: a concurrent insert of the same transfer waits for the other to commit or roll back).
   */
  async insertPayment(tx: SqlExecutor, payment: NewPayment): Promise<string | null> {
    const { transfer } = payment;
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO payments
         (address, gateway, amount_minor, period_start, period_end, chain_id, token, payer, tx_hash, log_index)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT DO NOTHING
       RETURNING id`,
      [
        payment.address,
        payment.gateway,
        payment.amountMinor.toString(),
        payment.periodStart,
        payment.periodEnd,
        transfer?.chainId ?? null,
        transfer?.token ?? null,
        transfer?.payer ?? null,
        transfer?.txHash ?? null,
        transfer?.logIndex ?? null,
      ],
    );
    return rows[0]?.id ?? null;
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
