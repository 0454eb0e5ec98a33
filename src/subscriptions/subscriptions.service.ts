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
import { DEFAULT_PLAN_ID } from '../plans/plan.js';
import type { PlanDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from './payment/payment-gateway.js';
import { SubscriptionCredits } from './subscription-credits.service.js';
import { canceledEvent, entitlementsEvent } from './subscription-events.js';
import { SubscriptionLookup } from './subscription-lookup.service.js';
import { SubscriptionPlanReader } from './subscription-plans.js';
import { historyDto, toSubscriptionDto } from './subscription-view.js';
import { SubscriptionErrors } from './subscriptions.errors.js';
import { SubscriptionsRepository, type Actor } from './subscriptions.repository.js';

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
      const chosen = await this.catalog.find(planId ?? current?.planId ?? DEFAULT_PLAN_ID);
      const approved =
        chosen.pricePerPeriod === 0n && this.payments.name === 'erc20'
          ? [{ periods: 1, amountMinor: 0n, transfer: null }]
          : await this.payments.approve({
              principal,
              address: target,
              txHash: hash,
              pricePerPeriod: chosen.pricePerPeriod,
            });
      const subscription = await this.db.transaction(async (tx) => {
        const plan = await this.catalog.hold(tx, chosen.id);
        if (plan.pricePerPeriod !== chosen.pricePerPeriod || plan.periodSeconds !== chosen.periodSeconds) {
          // Its terms changed between the read and the lock (possible only while it had no subscriber).
          throw SubscriptionErrors.planChanged();
        }
        // Read before the row lock: a transfer a concurrent renewal credits meanwhile is refused by its unique index.
        const { periods, amountMinor, transfer } = await this.repository.firstUncredited(tx, approved);
        const renewed = await this.credits.creditPayment(
          tx,
          {
            address: target,
            actor: principal,
            source: this.payments.name,
            periods,
            periodSeconds: plan.periodSeconds,
            idempotencyKey,
            plan: { id: plan.id, archived: plan.archivedAt !== null },
          },
          { amountMinor, transfer },
        );
        await claim.complete(tx, renewed);
        return renewed;
      });
      this.metrics.subscriptionChanges.inc({ type: 'renewed' });
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

function actorOf(principal: Principal): Actor {
  return { address: storageAddress(principal.address), keyId: principal.keyId ?? null };
}
