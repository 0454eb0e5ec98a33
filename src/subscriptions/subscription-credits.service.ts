import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { storageAddress } from '../common/address/wallet-address.js';
import { PAYMENT_GATEWAYS } from '../config/settings.js';
import type { SqlExecutor } from '../database/database.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import type { SubscriptionDto } from './dto/subscription.dto.js';
import type { TransferReference } from './payment/payment-gateway.js';
import { SYSTEM_ACTOR } from './subscription-event.entity.js';
import { SubscriptionPlanReader } from './subscription-plans.js';
import {
  entitlementsEvent,
  expiryEvents,
  planChangedEvent,
  recoveredEvent,
  renewedEvent,
} from './subscription-events.js';
import { subscriptionStatus } from './subscription-state.js';
import { toSubscriptionDto } from './subscription-view.js';
import { SubscriptionsRepository, type Actor } from './subscriptions.repository.js';

/** What names a credit's source in the history and the event (`payment.gateway`): lowercase, as a code. */
const SOURCE = /^[a-z][a-z0-9_]{0,31}$/;

/** Periods to add to a subscription (docs/extending.md, "Depending on another feature"). */
export interface PeriodCredit {
  /** The subscription's wallet address, in any case. */
  address: string;
  /** Who credits it, as the history records it: the caller's principal, or `system` for a job. */
  actor: Principal | typeof SYSTEM_ACTOR;
  /**
   * What credits it, recorded as the payment's `gateway` (`coupon`, `trial`, …): lowercase letters, digits and
   * `_`, at most 32, never a payment gateway's name, which only a payment may carry.
   */
  source: string;
  /** Whole periods to add; at least 1. */
  periods: number;
  /** One period's length, in seconds. */
  periodSeconds: number;
  /** The Idempotency-Key of the request that credits, if any, as the history records it. */
  idempotencyKey?: string;
  /**
   * The plan the periods are on, held by the caller (PlansService.hold) in `tx`; absent: the subscription's own.
   * Another plan than an active subscription's is refused (409 `plan_change_required`), and an archived one for a
   * subscription not on it (409 `plan_archived`).
   */
  plan?: { id: string; archived: boolean };
  /**
   * The periods are a free trial of `plan` (required with it): the subscription must not be in force, and the wallet
   * gets one trial of a plan, ever (the `subscription_trials` key, claimed in `tx`); otherwise 409
   * `trial_unavailable`, and `tx` must roll back. The new period is `trialing` to its end (`trialEnd`).
   */
  trial?: boolean;
  /**
   * The period end the periods follow, for a payment of the period after it (an automatic charge, which may
   * confirm after that end has passed): while the subscription still ends there they extend it from there, even once
   * it has run out, and never start from now.
   */
  paysAfter?: Date;
}

/** A payment the gateway approved (SubscriptionsService.renew): its amount and, on chain, its transfer. */
export interface CreditPayment {
  amountMinor: bigint;
  transfer: TransferReference | null;
}

/**
 * The seam through which a period is credited, by a payment (the renewal) or from any other source (a coupon, a
 * trial, a plan change): in the caller's transaction, with the subscription row locked until it ends, the row, its
 * history entry, its payment row (zero for another source) and its `subscription.renewed` event are written
 * exactly as a renewal writes them, and commit or roll back with the caller's own rows. Concurrent credits of one
 * address queue on the row lock, so N of them add N times their periods.
 */
@Injectable()
export class SubscriptionCredits {
  constructor(
    private readonly repository: SubscriptionsRepository,
    private readonly outbox: EventOutbox,
    private readonly plans: SubscriptionPlanReader,
  ) {}

  /**
   * Adds `credit.periods` periods after the current period end (or from now, when there is none or it ran out) and
   * returns the subscription after it, as the API shows it. `tx` is the caller's transaction
   * (`Database.transaction`), in PostgreSQL's default isolation (read committed); the caller answers only once it
   * commits. Throws on a malformed credit (a programming error, never the client's input).
   */
  credit(tx: SqlExecutor, credit: PeriodCredit): Promise<SubscriptionDto> {
    if ((PAYMENT_GATEWAYS as readonly string[]).includes(credit.source)) {
      throw new TypeError(`credit source ${credit.source} is a payment gateway's name`);
    }
    return this.write(tx, credit, { amountMinor: 0n, transfer: null });
  }

  /** {@link credit} by a payment the gateway approved, `credit.source` naming the gateway. */
  async creditPayment(
    tx: SqlExecutor,
    credit: PeriodCredit,
    payment: CreditPayment,
  ): Promise<SubscriptionDto> {
    return this.write(tx, credit, payment);
  }

  private async write(
    tx: SqlExecutor,
    credit: PeriodCredit,
    payment: CreditPayment,
  ): Promise<SubscriptionDto> {
    const { source, periods, periodSeconds } = credit;
    if (!SOURCE.test(source)) throw new TypeError(`credit source ${JSON.stringify(source)} is not a code`);
    if (!Number.isSafeInteger(periods) || periods < 1) throw new TypeError(`credit of ${periods} periods`);
    if (!Number.isSafeInteger(periodSeconds) || periodSeconds < 1) {
      throw new TypeError(`credit of periods of ${periodSeconds} s`);
    }
    const address = storageAddress(credit.address);
    // A wallet's own request is admitted against its event budget, before the row lock (one lock order for all).
    if (credit.actor !== SYSTEM_ACTOR) await this.outbox.admit(tx, address);
    const paymentCredit = { periods, ...payment };
    const written = await this.repository.credit(tx, {
      address,
      actor: actorOf(credit.actor),
      idempotencyKey: credit.idempotencyKey ?? null,
      gateway: source,
      credit: paymentCredit,
      periodMs: periodSeconds * 1000,
      plan: credit.plan ?? null,
      trial: credit.trial ?? false,
      paysAfter: credit.paysAfter ?? null,
    });
    if (written.expired !== null) {
      // With the features it ends, as the expiry sweep would have told of them; dated at the period end, when they
      // ended, so that they come before the renewal's events (dated now) in every listing.
      const { expired } = written;
      const ended = await this.plans.of(expired, tx);
      for (const event of expiryEvents(expired, expired.currentPeriodEnd, ended)) {
        await this.outbox.record(tx, event);
      }
    }
    const plans = await this.plans.of(written.stored, tx);
    const subscription = toSubscriptionDto(address, written.stored, written.now, plans);
    if (written.planChanged !== null) {
      // A scheduled change that fell due before this renewal: it took effect first, on the period it ended.
      const { from, at } = written.planChanged;
      const previousPlan = await this.plans.plan(from, tx);
      const previousPeriodEnd = written.previous!.currentPeriodEnd;
      const change = { address, now: written.now, previousPeriodEnd, effectiveAt: at, scheduled: true };
      await this.outbox.record(tx, planChangedEvent(subscription, change, previousPlan));
    }
    await this.outbox.record(tx, renewedEvent(subscription, { address, ...written }, paymentCredit, source));
    // A payment of a `past_due` subscription, automatic or not, ends its dunning; a grace held only while a charge
    // waited for the chain (SubscriptionDunning.holdForCharge) was no failure to recover from.
    if (
      written.previous &&
      subscriptionStatus(written.previous, written.now) === 'past_due' &&
      (await this.repository.paymentFailedAfter(tx, address, written.previous.currentPeriodEnd))
    ) {
      await this.outbox.record(tx, recoveredEvent(subscription, { address, now: written.now }));
    }
    const before = written.previous && (await this.plans.of(written.previous, tx));
    const was = before ? toSubscriptionDto(address, written.previous, written.now, before).features : [];
    const entitlements = entitlementsEvent(was, subscription, written.now);
    if (entitlements) await this.outbox.record(tx, entitlements);
    return subscription;
  }
}

function actorOf(actor: Principal | typeof SYSTEM_ACTOR): Actor {
  return actor === SYSTEM_ACTOR
    ? { address: SYSTEM_ACTOR, keyId: null }
    : { address: storageAddress(actor.address), keyId: actor.keyId ?? null };
}
