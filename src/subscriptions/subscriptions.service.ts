import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { storageAddress, type Address } from '../common/address/wallet-address.js';
import type { Page, PageRequest } from '../common/pagination/cursor-page.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { Metrics } from '../metrics/metrics.service.js';
import type { PlanDto, SubscriptionDto, SubscriptionEventDto } from './dto/subscription.dto.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from './payment/payment-gateway.js';
import { historyDto, subscriptionDtoOfRow, toSubscriptionDto } from './subscription-view.js';
import { SubscriptionReads } from './subscription-reads.service.js';
import { SubscriptionsRepository, type Actor } from './subscriptions.repository.js';

/**
 * Subscriptions. A change reads top to bottom: claim the Idempotency-Key (or replay its answer), let the payment
 * gateway approve a renewal, then one repository transaction writes the row, its history entry, its payment, its
 * outbox event and the key's answer together, or nothing (docs/architecture.md, "The renewal").
 */
@Injectable()
export class SubscriptionsService {
  private readonly periodMs: number;
  private readonly periodSeconds: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: SubscriptionsRepository,
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

  /** Computed at read time from the stored timestamps (cached until they change). */
  async status(address: Address): Promise<SubscriptionDto> {
    const subscription = await this.reads.find(storageAddress(address));
    const now = new Date();
    return subscription === null
      ? toSubscriptionDto(address, null, now)
      : subscriptionDtoOfRow(address, subscription, now);
  }

  async historyPage(address: Address, page: PageRequest): Promise<Page<SubscriptionEventDto>> {
    const { items, next } = await this.repository.history(storageAddress(address), page);
    return { items: items.map(historyDto), next };
  }

  /** `txHash`: the on-chain payment offered, if any (the gateway decides whether it takes one). */
  async renew(
    principal: Principal,
    address: Address,
    txHash: string | undefined,
    idempotencyKey?: string,
  ): Promise<SubscriptionDto> {
    const target = storageAddress(address);
    const hash = txHash?.toLowerCase();
    const parameters = hash === undefined ? { address: target } : { address: target, txHash: hash };
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
      const credits = await this.payments.approve({ principal, address: target, txHash: hash });
      const subscription = await this.repository.renew(
        {
          address: target,
          actor: actorOf(principal),
          idempotencyKey: idempotencyKey ?? null,
          gateway: this.payments.name,
          credits,
          periodMs: this.periodMs,
        },
        claim,
      );
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
      const { subscription, changed } = await this.repository.cancel(
        { address: target, actor: actorOf(principal), idempotencyKey: idempotencyKey ?? null, immediate },
        claim,
      );
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
