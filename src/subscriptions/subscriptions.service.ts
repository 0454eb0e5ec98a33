import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { checksumAddress, storageAddress, type Address } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { Database, type SqlExecutor } from '../database/database.service.js';
import type { InvalidationTicket } from '../cache/invalidation-log.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import { Metrics } from '../metrics/metrics.service.js';
import type { PaymentDto, PlanDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import {
  idempotencyPrincipal,
  requestFingerprint,
  type IdempotentRequest,
} from './idempotency/idempotent-request.js';
import { PAYMENT_GATEWAY, type PaymentCredit, type PaymentGateway } from './payment/payment-gateway.js';
import { PaymentErrors } from './payment/payment.errors.js';
import { SYSTEM_ACTOR } from './subscription-event.entity.js';
import {
  cancelSubscription,
  renewSubscription,
  subscriptionStatus,
  type SubscriptionPeriodState,
} from './subscription-state.js';
import { subscriptionDtoOfRow, toSubscriptionDto } from './subscription-view.js';
import { SubscriptionErrors } from './subscriptions.errors.js';
import { SubscriptionReads } from './subscription-reads.service.js';
import {
  SubscriptionsRepository,
  type NewPayment,
  type PaymentRow,
  type Renewal,
  type StoredSubscription,
  type SubscriptionEventRow,
} from './subscriptions.repository.js';

/** Who asked for a change, as the history records it. */
interface Actor {
  /** Lowercase. */
  address: string;
  keyId: string | null;
}

type ChangeType = 'renewed' | 'canceled';

/** A change a request made, once written with its history entry. */
interface Change {
  type: ChangeType;
  /** Lowercase. */
  address: string;
  now: Date;
  previousPeriodEnd: Date | null;
  /** The row after the change. */
  stored: StoredSubscription;
  /** Event-specific additions to the outbox event's `data`. */
  data?: Record<string, unknown>;
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/**
 * Subscriptions. Every change runs in one transaction with the subscription row locked:
 * the state machine's result, the history entry, the payment and the outbox event commit together or not at all.
 */
@Injectable()
export class SubscriptionsService {
  private readonly periodMs: number;
  private readonly periodSeconds: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly db: Database,
    private readonly repository: SubscriptionsRepository,
    private readonly outbox: EventOutbox,
    private readonly idempotency: IdempotencyService,
    private readonly reads: SubscriptionReads,
    @Inject(PAYMENT_GATEWAY) private readonly payments: PaymentGateway,
    private readonly metrics: Metrics,
  ) {
    this.periodMs = config.subscriptionPeriodSeconds * 1000;
    this.periodSeconds = config.subscriptionPeriodSeconds;
  }

  /** How renewals are paid here: what a client needs to pay without reading the server's configuration. */
  async plan(): Promise<PlanDto> {
    const terms = await this.payments.terms();
    return {
      gateway: this.payments.name,
      periodSeconds: this.periodSeconds,
      erc20: terms && { ...terms, pricePerPeriod: terms.pricePerPeriod.toString() },
    };
  }

  /**
   * Computed at read time from the stored timestamps (cached until they change). `ticket`: the request's
   * (InvalidationLog.requestTicket).
   */
  async status(address: Address, ticket?: InvalidationTicket): Promise<SubscriptionDto> {
    const subscription = await this.reads.find(storageAddress(address), ticket);
    const now = new Date();
    return subscription === null
      ? toSubscriptionDto(address, null, now)
      : subscriptionDtoOfRow(address, subscription, now);
  }

  async history(address: Address): Promise<SubscriptionEventDto[]> {
    return (await this.repository.history(storageAddress(address))).map(historyDto);
  }

  async historyPage(address: Address, page: PageRequest): Promise<Page<SubscriptionEventDto>> {
    const { items, next } = await this.repository.history(storageAddress(address), page);
    return { items: items.map(historyDto), next };
  }

  /**
   * `txHash`: the on-chain payment offered (`erc20`). The gateway checks it before the transaction, once the
   * Idempotency-Key is claimed, so a replay never asks the chain again.
   */
  renew(
    principal: Principal,
    address: Address,
    txHash: string | undefined,
    idempotencyKey?: string,
  ): Promise<SubscriptionDto> {
    const target = storageAddress(address);
    const hash = txHash?.toLowerCase();
    const request = this.idempotentRequest(
      principal,
      idempotencyKey,
      'renew',
      hash === undefined ? { address: target } : { address: target, txHash: hash },
    );
    return this.counted((changes) =>
      this.idempotency.execute(
        request,
        (tx, credits) =>
          this.renewLocked(tx, actorOf(principal), target, idempotencyKey ?? null, credits, changes),
        async () => {
          if (hash !== undefined && this.payments.name !== 'erc20') {
            throw PaymentErrors.notExpected(this.payments.name);
          }
          return this.payments.approve({ principal, address: target, txHash: hash });
        },
      ),
    );
  }

  cancel(
    principal: Principal,
    address: Address,
    immediate: boolean,
    idempotencyKey?: string,
  ): Promise<SubscriptionDto> {
    const target = storageAddress(address);
    const request = this.idempotentRequest(principal, idempotencyKey, 'cancel', {
      address: target,
      immediate,
    });
    return this.counted((changes) =>
      this.idempotency.execute(request, (tx) =>
        this.cancelLocked(tx, actorOf(principal), target, immediate, idempotencyKey ?? null, changes),
      ),
    );
  }

  /** Counts the changes `run` made once it has resolved, that is once they are committed (a rollback throws). */
  private async counted(run: (changes: ChangeType[]) => Promise<SubscriptionDto>): Promise<SubscriptionDto> {
    const changes: ChangeType[] = [];
    const result = await run(changes);
    for (const type of changes) this.metrics.subscriptionChanges.inc({ type });
    return result;
  }

  /**
   * Records the expiry of every period that ended and whose expiry is not recorded yet, up to `limit` of them, in
   * one transaction. Returns how many it recorded. Safe to run on several instances at once.
   */
  recordDueExpiries(limit: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const now = await this.repository.clock(tx);
      const due = await this.repository.claimDueExpiries(tx, now, limit);
      for (const subscription of due) await this.recordExpiry(tx, subscription, now);
      return due.length;
    });
  }

  /**
   * Round trips for an existing subscription, besides BEGIN and COMMIT: the lock with the clock, the row with its
   * payment and history entry, the event with its deliveries. A first renewal inserts the row instead (and locks
   * again if a concurrent one created it first).
   */
  private async renewLocked(
    tx: SqlExecutor,
    actor: Actor,
    address: string,
    idempotencyKey: string | null,
    credits: readonly PaymentCredit[],
    changes: ChangeType[],
  ): Promise<SubscriptionDto> {
    const credit = await this.uncredited(tx, credits);
    const periodMs = this.periodMs * credit.periods;
    let { current, now } = await this.repository.lock(tx, address);
    const payment = (next: SubscriptionPeriodState): NewPayment => ({
      gateway: this.payments.name,
      amountMinor: credit.amountMinor,
      transfer: credit.transfer,
      periodStart: new Date(next.currentPeriodEnd.getTime() - periodMs),
      periodEnd: next.currentPeriodEnd,
    });
    const event = { type: 'renewed', actor: actor.address, actorKeyId: actor.keyId, idempotencyKey } as const;
    let previousPeriodEnd: Date | null = null;
    let renewal: Renewal | null = null;
    if (current === null) {
      const { next } = renewSubscription(null, now, periodMs);
      renewal = await this.repository.insertRenewal(
        tx,
        { address, state: next, expiryRecordedFor: null, now, event: { ...event, previousPeriodEnd } },
        payment(next),
      );
      // Of concurrent first renewals one inserts the row; the others lock it, and renew it as any other.
      if (renewal === null) ({ current, now } = await this.repository.lock(tx, address));
    }
    if (renewal === null) {
      if (current === null) throw new Error(`subscription ${address} vanished while being renewed`);
      // The period ran out but the sweep has not recorded it yet: record it now, before it is replaced.
      const expiryDue =
        subscriptionStatus(current, now) !== 'active' &&
        current.expiryRecordedFor?.getTime() !== current.currentPeriodEnd.getTime();
      if (expiryDue) await this.recordExpiry(tx, current, now);
      const { next, previousPeriodEnd: end } = renewSubscription(current, now, periodMs);
      previousPeriodEnd = end;
      renewal = await this.repository.updateRenewal(
        tx,
        {
          address,
          state: next,
          expiryRecordedFor: expiryDue ? current.currentPeriodEnd : current.expiryRecordedFor,
          now,
          event: { ...event, previousPeriodEnd },
        },
        payment(next),
      );
    }
    const { stored, paymentId } = renewal;
    // Credited meanwhile by a concurrent renewal citing the same transfer: this one rolls back.
    if (paymentId === null) throw PaymentErrors.alreadyUsed(credit.transfer!.txHash);
    const { transfer } = credit;
    return this.recordChange(tx, changes, {
      type: 'renewed',
      address,
      now,
      previousPeriodEnd,
      stored,
      data: {
        periods: credit.periods,
        payment: paymentDto({
          gateway: this.payments.name,
          amountMinor: credit.amountMinor.toString(),
          chainId: transfer && String(transfer.chainId),
          token: transfer && transfer.token,
          payer: transfer && transfer.payer,
          txHash: transfer && transfer.txHash,
          logIndex: transfer && transfer.logIndex,
        }),
      },
    });
  }

  /**
   * The first credit whose transfer was not credited before (a transaction may hold several qualifying
   * transfers, each paying once). Read before the row lock, so a concurrent renewal can still take it: the
   * payment's unique index then refuses the later one.
   */
  private async uncredited(tx: SqlExecutor, credits: readonly PaymentCredit[]): Promise<PaymentCredit> {
    const transfer = credits[0]?.transfer;
    if (!transfer) return credits[0]!;
    const credited = await this.repository.creditedTransfers(tx, transfer.chainId, transfer.txHash);
    const credit = credits.find((candidate) => !credited.has(candidate.transfer!.logIndex));
    if (credit === undefined) throw PaymentErrors.alreadyUsed(transfer.txHash);
    return credit;
  }

  private async cancelLocked(
    tx: SqlExecutor,
    actor: Actor,
    address: string,
    immediate: boolean,
    idempotencyKey: string | null,
    changes: ChangeType[],
  ): Promise<SubscriptionDto> {
    const { current, now } = await this.repository.lock(tx, address);
    const outcome = cancelSubscription(current, now, immediate);
    if (outcome.kind === 'not_found' || current === null) throw SubscriptionErrors.notFound();
    if (outcome.kind === 'unchanged') return toSubscriptionDto(address, current, now);
    const stored = await this.repository.updateUnpaid(tx, {
      address,
      state: outcome.next,
      expiryRecordedFor: current.expiryRecordedFor,
      now,
      event: {
        type: 'canceled',
        actor: actor.address,
        actorKeyId: actor.keyId,
        previousPeriodEnd: current.currentPeriodEnd,
        idempotencyKey,
      },
    });
    return this.recordChange(tx, changes, {
      type: 'canceled',
      address,
      now,
      previousPeriodEnd: current.currentPeriodEnd,
      stored,
      data: { immediate: outcome.immediate },
    });
  }

  /**
   * The outbox event of an accepted change, whose row and history entry are written. The event's `data` is the
   * subscription object with the period end before the change, plus `data`. Returns the subscription object.
   */
  private async recordChange(
    tx: SqlExecutor,
    changes: ChangeType[],
    change: Change,
  ): Promise<SubscriptionDto> {
    const { address, stored, now, previousPeriodEnd } = change;
    changes.push(change.type);
    const subscription = toSubscriptionDto(address, stored, now);
    await this.outbox.record(tx, {
      type: `subscription.${change.type}`,
      address,
      data: { ...subscription, previousPeriodEnd: iso(previousPeriodEnd), ...change.data },
      occurredAt: now,
    });
    return subscription;
  }

  /**
   * The history entry and the `subscription.expired` event of a period that ran out, recorded at `now`. The caller
   * marks `expiry_recorded_for` in the same transaction, which makes this exactly-once per period end.
   */
  private async recordExpiry(tx: SqlExecutor, subscription: StoredSubscription, now: Date): Promise<void> {
    const end = subscription.currentPeriodEnd;
    // Seen from its own end, a period is no longer active: `canceled` or `expired`.
    const ended = toSubscriptionDto(subscription.address, subscription, end);
    await this.repository.insertEvent(tx, {
      address: subscription.address,
      type: 'expired',
      at: end,
      actor: SYSTEM_ACTOR,
      actorKeyId: null,
      previousPeriodEnd: end,
      currentPeriodEnd: end,
      idempotencyKey: null,
    });
    await this.outbox.record(tx, {
      type: 'subscription.expired',
      address: subscription.address,
      data: { ...ended, reason: ended.status === 'canceled' ? 'canceled' : 'not_renewed' },
      occurredAt: now,
    });
  }

  private idempotentRequest(
    principal: Principal,
    key: string | undefined,
    operation: string,
    parameters: Record<string, unknown>,
  ): IdempotentRequest | undefined {
    if (key === undefined) return undefined;
    return {
      principal: idempotencyPrincipal(principal),
      key,
      fingerprint: requestFingerprint(operation, parameters),
    };
  }
}

function historyDto(row: SubscriptionEventRow): SubscriptionEventDto {
  return {
    id: row.id,
    type: row.type,
    at: row.at.toISOString(),
    actor: row.actor === SYSTEM_ACTOR ? SYSTEM_ACTOR : checksumAddress(row.actor),
    previousPeriodEnd: iso(row.previousPeriodEnd),
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
    payment: row.payment && paymentDto(row.payment),
  };
}

function paymentDto(row: PaymentRow): PaymentDto {
  return {
    gateway: row.gateway,
    amount: row.amountMinor,
    chainId: row.chainId === null ? null : Number(row.chainId),
    token: row.token && checksumAddress(row.token),
    payer: row.payer && checksumAddress(row.payer),
    txHash: row.txHash,
    logIndex: row.logIndex,
  };
}

function actorOf(principal: Principal): Actor {
  return { address: storageAddress(principal.address), keyId: principal.keyId ?? null };
}
