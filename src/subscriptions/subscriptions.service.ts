import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { storageAddress, type Address } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { autoRenewOfferOf, type AutoRenewOffer } from '../config/settings.js';
import { Database } from '../database/database.service.js';
import { EventOutbox } from '../events/event-outbox.service.js';
import { Metrics } from '../metrics/metrics.service.js';
import { PlanUsage } from '../plans/plan-usage.js';
import { PlansService } from '../plans/plans.service.js';
import { DEFAULT_PLAN_ID, type Plan } from '../plans/plan.js';
import { ApiError } from '../common/errors/api-error.js';
import type { PlanDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from './payment/payment-gateway.js';
import { PaymentErrors } from './payment/payment.errors.js';
import { inForce, subscriptionStatus } from './subscription-state.js';
import { SubscriptionCredits } from './subscription-credits.service.js';
import { decidePlanChange } from './plan-change.js';
import { canceledEvent, entitlementsEvent, planChangedEvent } from './subscription-events.js';
import { PlanErrors } from '../plans/plans.errors.js';
import { SubscriptionLookup } from './subscription-lookup.service.js';
import { SubscriptionPlanReader } from './subscription-plans.js';
import { historyDto, toSubscriptionDto } from './subscription-view.js';
import { SubscriptionErrors } from './subscriptions.errors.js';
import { SubscriptionsRepository, type Actor, type StoredSubscription } from './subscriptions.repository.js';

/** The credit source of a trial, as the history and `subscription.renewed` name it (`payment.gateway`). */
const TRIAL_SOURCE = 'trial';
const TRIAL_UNAVAILABLE = SubscriptionErrors.trialUnavailable().code;

/**
 * Subscriptions. A change reads top to bottom: claim the Idempotency-Key (or replay its answer), let the payment
 * gateway approve a renewal, then one transaction writes the row, its history entry, its payment, its outbox event
 * and the key's answer together, or nothing (docs/architecture.md, "The renewal").
 */
@Injectable()
export class SubscriptionsService {
  private readonly periodSeconds: number;
  private readonly autoRenewOffer: AutoRenewOffer;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly db: Database,
    private readonly repository: SubscriptionsRepository,
    private readonly credits: SubscriptionCredits,
    private readonly lookup: SubscriptionLookup,
    private readonly outbox: EventOutbox,
    private readonly idempotency: IdempotencyService,
    @Inject(PAYMENT_GATEWAY) private readonly payments: PaymentGateway,
    private readonly metrics: Metrics,
    private readonly plans: SubscriptionPlanReader,
    private readonly catalog: PlansService,
    planUsage: PlanUsage,
  ) {
    this.periodSeconds = config.subscriptionPeriodSeconds;
    this.autoRenewOffer = autoRenewOfferOf(config);
    planUsage.register((tx, planId) => this.repository.planInUse(tx, planId));
  }

  /** How renewals are paid here: what a client needs to pay without reading the server's configuration. */
  async plan(): Promise<PlanDto> {
    const terms = await this.payments.terms();
    const offer = this.autoRenewOffer;
    const plan = await this.catalog.find(DEFAULT_PLAN_ID);
    return {
      gateway: this.payments.name,
      periodSeconds: this.periodSeconds,
      erc20: terms && { ...terms, pricePerPeriod: terms.pricePerPeriod.toString() },
      autoRenew:
        offer.gateway === 'unavailable'
          ? null
          : {
              gateway: offer.gateway,
              chainId: offer.gateway === 'erc20' ? offer.chainId : null,
              charger: offer.gateway === 'erc20' ? offer.charger : null,
              token: offer.gateway === 'erc20' ? offer.token : null,
              payee: offer.gateway === 'erc20' ? offer.payee : null,
              amount: plan.pricePerPeriod.toString(),
              periodSeconds: plan.periodSeconds,
            },
    };
  }

  /** Computed at read time from the stored timestamps (cached until they change). */
  status(address: Address): Promise<SubscriptionDto> {
    return this.lookup.status(address);
  }

  async historyPage(address: Address, page: PageRequest): Promise<Page<SubscriptionEventDto>> {
    const { items, next } = await this.repository.history(storageAddress(address), page);
    return { items: items.map(historyDto), next };
  }

  /**
   * `txHash`: the on-chain payment offered, if any (the gateway decides whether it takes one). `planId`: the plan
   * to subscribe to; absent, the subscription's own (or `default`).
   */
  async renew(
    principal: Principal,
    address: Address,
    txHash: string | undefined,
    idempotencyKey?: string,
    planId?: string,
  ): Promise<SubscriptionDto> {
    const target = storageAddress(address);
    const hash = txHash?.toLowerCase();
    // Without a plan the parameters are the ones a key was claimed with before plans existed.
    const parameters = {
      address: target,
      ...(hash === undefined ? {} : { txHash: hash }),
      ...(planId === undefined ? {} : { plan: planId }),
    };
    const claim = await this.idempotency.begin<SubscriptionDto>(
      principal,
      idempotencyKey,
      'renew',
      parameters,
    );
    if (claim.replay !== undefined) return claim.replay;
    try {
      // Outside the transaction: the gateway may wait on the chain, and no row is locked meanwhile. A replay above
      // never asks the chain again.
      // The plan is read here for its price, and again under its lock in the transaction, which decides.
      const current = await this.repository.find(target);
      // While a change is scheduled, the periods a renewal appends are the next plan's.
      const chosen = await this.catalog.find(
        planId ?? current?.pendingPlanId ?? current?.planId ?? DEFAULT_PLAN_ID,
      );
      const trial = await this.offersTrial(target, current, chosen);
      // A trial needs no payment: under erc20 none is asked for (one sent anyway pays the period after the trial).
      const approved =
        chosen.pricePerPeriod === 0n && this.payments.name === 'erc20'
          ? [{ periods: 1, amountMinor: 0n, transfer: null }]
          : trial && this.payments.name === 'erc20' && hash === undefined
            ? null
            : await this.payments.approve({
                principal,
                address: target,
                txHash: hash,
                pricePerPeriod: chosen.pricePerPeriod,
              });
      const subscribe = (withTrial: boolean): Promise<SubscriptionDto> =>
        this.db.transaction(async (tx) => {
          const plan = await this.catalog.hold(tx, chosen.id);
          if (plan.pricePerPeriod !== chosen.pricePerPeriod || plan.periodSeconds !== chosen.periodSeconds) {
            // Its terms changed between the read and the lock (possible only while it had no subscriber).
            throw SubscriptionErrors.planChanged();
          }
          const held = { id: plan.id, archived: plan.archivedAt !== null };
          let renewed: SubscriptionDto | null = null;
          if (withTrial && plan.trialSeconds !== null) {
            renewed = await this.credits.credit(tx, {
              address: target,
              actor: principal,
              source: TRIAL_SOURCE,
              periods: 1,
              periodSeconds: plan.trialSeconds,
              idempotencyKey,
              plan: held,
              trial: true,
            });
          }
          // After a trial, only a payment sent on chain with the request is credited (after the trial); the free
          // period `free` and `operator` approve is the trial itself.
          if (approved !== null && (renewed === null || approved[0]!.transfer !== null)) {
            // Read before the row lock: a transfer a concurrent renewal credits meanwhile is refused by its unique index.
            const { periods, amountMinor, transfer } = await this.repository.firstUncredited(tx, approved);
            renewed = await this.credits.creditPayment(
              tx,
              {
                address: target,
                actor: principal,
                source: this.payments.name,
                periods,
                periodSeconds: plan.periodSeconds,
                idempotencyKey,
                plan: held,
              },
              { amountMinor, transfer },
            );
          }
          if (renewed === null) throw PaymentErrors.required();
          await claim.complete(tx, renewed);
          return renewed;
        });
      let subscription: SubscriptionDto;
      try {
        subscription = await subscribe(trial);
      } catch (error) {
        // A concurrent request took the trial (or started the subscription) first: this one is an ordinary renewal.
        if (!trial || !(error instanceof ApiError) || error.code !== TRIAL_UNAVAILABLE) throw error;
        if (approved === null) throw PaymentErrors.required();
        subscription = await subscribe(false);
      }
      this.metrics.subscriptionChanges.inc({ type: 'renewed' });
      return subscription;
    } catch (error) {
      await claim.abandon(error);
      throw error;
    }
  }

  private offersTrial(address: string, current: StoredSubscription | null, plan: Plan): Promise<boolean> {
    return trialOffered(plan, current, async () => !(await this.repository.trialTaken(address, plan.id)));
  }

  /**
   * Changes the plan of an active subscription (docs/api-guide.md, "Changing plan"): to a dearer plan per second at
   * once, the time left converted at the two plans' prices per second; to another at the period end
   * (`pendingPlan`), applied by the plan-change sweep; to the current plan, dropping a scheduled change.
   */
  async changePlan(
    principal: Principal,
    address: Address,
    planId: string,
    idempotencyKey?: string,
  ): Promise<SubscriptionDto> {
    const target = storageAddress(address);
    const claim = await this.idempotency.begin<SubscriptionDto>(principal, idempotencyKey, 'change-plan', {
      address: target,
      plan: planId,
    });
    if (claim.replay !== undefined) return claim.replay;
    try {
      const { subscription, changed } = await this.db.transaction(async (tx) => {
        // The plan first, FOR SHARE (as a renewal holds it): its price and period cannot change before this commits.
        const to = await this.catalog.hold(tx, planId);
        // Admitted against the wallet's event budget before the row lock, as a renewal is (one lock order for all).
        await this.outbox.admit(tx, target);
        const locked = await this.repository.lockRow(tx, target);
        const { current, now } = locked;
        if (current === null || subscriptionStatus(current, now) !== 'active')
          throw SubscriptionErrors.notActive();
        // The plan the subscription is on has it as a subscriber: its price and period are fixed.
        const from = await this.catalog.find(current.planId, tx);
        const decision = decidePlanChange(current, now, from, to);
        if (to.archivedAt !== null && to.id !== from.id && decision.kind !== 'unchanged') {
          throw PlanErrors.archived();
        }
        const write = {
          address: target,
          actor: actorOf(principal),
          idempotencyKey: idempotencyKey ?? null,
          locked: { current, now },
        };
        const before = toSubscriptionDto(target, current, now, await this.plans.of(current, tx));
        let stored = current;
        switch (decision.kind) {
          case 'no_time_left':
            throw SubscriptionErrors.noTimeLeft();
          case 'unchanged':
            break;
          case 'now':
            stored = await this.repository.changePlanNow(tx, write, to.id, decision.periodEnd);
            break;
          case 'schedule':
            stored = await this.repository.schedulePlan(tx, write, { planId: to.id, at: decision.at });
            break;
          case 'unschedule':
            stored = await this.repository.schedulePlan(tx, write, null);
            break;
        }
        const after = toSubscriptionDto(target, stored, now, await this.plans.of(stored, tx));
        if (decision.kind === 'now') {
          const change = {
            address: target,
            now,
            previousPeriodEnd: current.currentPeriodEnd,
            effectiveAt: now,
            scheduled: false,
          };
          await this.outbox.record(tx, planChangedEvent(after, change, from));
          const entitlements = entitlementsEvent(before.features, after, now);
          if (entitlements) await this.outbox.record(tx, entitlements);
        }
        await claim.complete(tx, after);
        return { subscription: after, changed: decision.kind !== 'unchanged' };
      });
      if (changed) this.metrics.subscriptionChanges.inc({ type: 'plan_changed' });
      return subscription;
    } catch (error) {
      await claim.abandon(error);
      throw error;
    }
  }

  async cancel(
    principal: Principal,
    address: Address,
    immediate: boolean,
    idempotencyKey?: string,
  ): Promise<SubscriptionDto> {
    const target = storageAddress(address);
    const parameters = { address: target, immediate };
    const claim = await this.idempotency.begin<SubscriptionDto>(
      principal,
      idempotencyKey,
      'cancel',
      parameters,
    );
    if (claim.replay !== undefined) return claim.replay;
    try {
      const request = {
        address: target,
        actor: actorOf(principal),
        idempotencyKey: idempotencyKey ?? null,
        immediate,
      };
      const { subscription, changed } = await this.db.transaction(async (tx) => {
        const written = await this.repository.cancel(tx, request);
        const plans = await this.plans.of(written.stored, tx);
        const canceled = toSubscriptionDto(target, written.stored, written.now, plans);
        if (written.changed) {
          const { now, previousPeriodEnd, immediate: atOnce } = written;
          await this.outbox.record(
            tx,
            canceledEvent(canceled, { address: target, now, previousPeriodEnd }, atOnce),
          );
          // Only a cancel now ends the features; one at period end leaves them to the expiry.
          const entitlements = atOnce ? entitlementsEvent(plans.plan.features, canceled, now) : null;
          if (entitlements) await this.outbox.record(tx, entitlements);
        }
        await claim.complete(tx, canceled);
        return { subscription: canceled, changed: written.changed };
      });
      if (changed) this.metrics.subscriptionChanges.inc({ type: 'canceled' });
      return subscription;
    } catch (error) {
      await claim.abandon(error);
      throw error;
    }
  }
}

/**
 * Whether subscribing `address` to `plan` now starts with its trial: the plan has one and is offered, the
 * subscription is not in force, and the wallet never took this plan's trial. Read outside the transaction to know
 * whether a payment is needed; the trial's credit decides again under its locks.
 */
function trialOffered(
  plan: Plan,
  current: StoredSubscription | null,
  taken: () => Promise<boolean>,
): Promise<boolean> {
  if (plan.trialSeconds === null || plan.archivedAt !== null) return Promise.resolve(false);
  if (current !== null && inForce(subscriptionStatus(current, new Date()))) return Promise.resolve(false);
  return taken();
}

function actorOf(principal: Principal): Actor {
  return { address: storageAddress(principal.address), keyId: principal.keyId ?? null };
}
