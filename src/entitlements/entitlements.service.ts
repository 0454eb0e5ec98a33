import { Injectable } from '@nestjs/common';
import type { Address } from '../common/address/wallet-address.js';
import { SubscriptionLookup } from '../subscriptions/subscription-lookup.service.js';
import { entitlementOf, entitlementsOf, type Entitlement, type EntitlementList } from './entitlements.js';

/**
 * Entitlements are read from the subscription as `GET /subscriptions/status` serves it (the subscription cache,
 * invalidated on every instance), so they cost what a status read costs and honour every change committed before
 * the request.
 */
@Injectable()
export class EntitlementsService {
  constructor(private readonly subscriptions: SubscriptionLookup) {}

  async list(address: Address): Promise<EntitlementList> {
    return entitlementsOf(await this.subscriptions.status(address));
  }

  async check(address: Address, feature: string): Promise<Entitlement> {
    return entitlementOf(await this.subscriptions.status(address), feature);
  }
}
