import { Inject, Injectable } from '@nestjs/common';
import { storageAddress } from '../common/address/wallet-address.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import type { SqlExecutor } from '../database/database.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import type { SubscriptionDto } from './dto/subscription.dto.js';
import { SYSTEM_ACTOR } from './subscription-event.entity.js';
import {
  canceledEvent,
  entitlementsEvent,
  paymentFailedEvent,
  type PaymentFailure,
} from './subscription-events.js';
import { SubscriptionPlanReader } from './subscription-plans.js';
import { toSubscriptionDto } from './subscription-view.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';

/**
 * The seam through which automatic renewal reports a charge it could not make (docs/extending.md, "Depending on
 * another feature"), in the caller's transaction with the subscription row locked until it ends. A payment that
 * later succeeds goes through SubscriptionCredits, which ends the dunning (`subscription.recovered`).
 */
@Injectable()
export class SubscriptionDunning {
  private readonly graceMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: SubscriptionsRepository,
    private readonly outbox: EventOutbox,
    private readonly plans: SubscriptionPlanReader,
  ) {
    this.graceMs = config.subscriptionGraceHours * 3_600_000;
  }

  /**
   * The charge of the period that follows `periodEnd` failed and will be retried: the subscription becomes
   * `past_due` until SUBSCRIPTION_GRACE_HOURS after `periodEnd` (a later failure keeps that end), with a
   * `payment_failed` history entry and a `subscription.payment_failed` event. Null, and nothing written, when the
   * subscription no longer ends at `periodEnd` (renewed meanwhile) or is not to be renewed (over, canceled).
   */
  async paymentFailed(
    tx: SqlExecutor,
    address: string,
    periodEnd: Date,
    failure: PaymentFailure,
  ): Promise<SubscriptionDto | null> {
    const target = storageAddress(address);
    const written = await this.repository.paymentFailed(tx, target, periodEnd, this.graceMs);
    if (written === null) return null;
    const subscription = toSubscriptionDto(
      target,
      written.stored,
      written.now,
      await this.plans.of(written.stored, tx),
    );
    const graceUntil = written.stored.graceUntil!;
    // The next attempt is pointless once the subscription has expired.
    const nextAttemptAt =
      failure.nextAttemptAt && failure.nextAttemptAt.getTime() < graceUntil.getTime()
        ? failure.nextAttemptAt
        : null;
    await this.outbox.record(
      tx,
      paymentFailedEvent(
        subscription,
        { address: target, now: written.now, graceUntil },
        { ...failure, nextAttemptAt },
      ),
    );
    return subscription;
  }

  /**
   * A charge of the period after `periodEnd` waits for the chain: sent and not yet confirmed, or not made because the
   * chain's endpoint is down. The subscriber did nothing wrong, and the charge may well have been made: the
   * subscription stays in force (`past_due`) until SUBSCRIPTION_GRACE_HOURS after `periodEnd`, so that it does not
   * lapse before the charge is known, with no history entry and no event. Also in the moments after `periodEnd`
   * (the wait began before it), unless its expiry was recorded. False when nothing was held: renewed meanwhile,
   * canceled, already in a grace, or over.
   */
  holdForCharge(tx: SqlExecutor, address: string, periodEnd: Date): Promise<boolean> {
    return this.repository.holdForCharge(tx, storageAddress(address), periodEnd, this.graceMs);
  }

  /**
   * The automatic renewal can no longer charge (its mandate revoked or used up): the subscription is canceled at
   * its period end, as a cancel by the service (`subscription.canceled` with the reason), not retried. In a
   * `past_due` grace past its period end, that ends it now. Null when there was nothing to cancel.
   */
  async stopRenewal(
    tx: SqlExecutor,
    address: string,
    stopped: { reason: string; message: string },
  ): Promise<SubscriptionDto | null> {
    const target = storageAddress(address);
    const current = await this.repository.find(target);
    if (current === null) return null;
    const written = await this.repository.cancel(tx, {
      address: target,
      actor: { address: SYSTEM_ACTOR, keyId: null },
      idempotencyKey: null,
      immediate: false,
    });
    if (!written.changed) return null;
    const { now, previousPeriodEnd } = written;
    const plans = await this.plans.of(written.stored, tx);
    const canceled = toSubscriptionDto(target, written.stored, now, plans);
    await this.outbox.record(
      tx,
      canceledEvent(canceled, { address: target, now, previousPeriodEnd }, false, stopped),
    );
    // Past its period end (a grace), the cancel ends the features now.
    const before = toSubscriptionDto(target, current, now, plans);
    const entitlements = entitlementsEvent(before.features, canceled, now);
    if (entitlements) await this.outbox.record(tx, entitlements);
    return canceled;
  }
}
