import { Injectable } from '@nestjs/common';
import { storageAddress, type Address } from '../common/address/wallet-address.js';
import type { SubscriptionDto } from './dto/subscription.dto.js';
import { PlanReads } from '../plans/plan-reads.service.js';
import { SubscriptionAutoRenew } from './subscription-auto-renew.js';
import { relationsOf } from './subscription-plans.js';
import { SubscriptionReads } from './subscription-reads.service.js';
import { subscriptionDtoOfRow, toSubscriptionDto } from './subscription-view.js';

/**
 * The seam through which a subscription is read (docs/extending.md, "Depending on another feature"): the object
 * `GET /subscriptions/status` answers, its status computed now. Served from the subscription and plan caches, so it
 * answers as of the access guard's barrier: call it while serving a request the guard admitted.
 */
@Injectable()
export class SubscriptionLookup {
  constructor(
    private readonly reads: SubscriptionReads,
    private readonly plans: PlanReads,
    private readonly autoRenew: SubscriptionAutoRenew,
  ) {}

  /** The subscription of `address` (`none` when it never subscribed). */
  async status(address: Address): Promise<SubscriptionDto> {
    const subscription = await this.reads.find(storageAddress(address));
    const plans = await relationsOf(
      subscription,
      (id) => this.plans.find(id),
      (wallet) => this.autoRenew.ofCached(wallet),
    );
    const now = new Date();
    return subscription === null
      ? toSubscriptionDto(address, null, now, plans)
      : subscriptionDtoOfRow(address, subscription, now, plans);
  }
}
