import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../database/database.service.js';
import type { AutoRenewDto } from './dto/subscription.dto.js';

/** What the subscription object shows when no automatic renewal is registered. */
export const AUTO_RENEW_OFF: AutoRenewDto = Object.freeze({
  enabled: false,
  nextChargeAt: null,
  amount: null,
  token: null,
  endsAt: null,
  failure: null,
});

/**
 * Reads a wallet's automatic renewal for its subscription object (`address` lowercase); `tx`, when given, is the
 * transaction the object is built in, whose own changes it must see.
 */
export type AutoRenewReader = (address: string, tx?: SqlExecutor) => Promise<AutoRenewDto>;

/**
 * The port through which the subscription object shows its automatic renewal: the auto-renew feature, which
 * depends on subscriptions, registers its reader at start (as subscriptions registers with PlanUsage). Until one
 * registers (automatic renewal not loaded), every subscription shows it off.
 */
@Injectable()
export class SubscriptionAutoRenew {
  private reader: AutoRenewReader = () => Promise.resolve(AUTO_RENEW_OFF);
  private cachedReader: (address: string) => Promise<AutoRenewDto> = (address) => this.reader(address);

  /** `cached`: the same answer from a cache kept exact as of the access guard's barrier (SubscriptionLookup). */
  register(reader: AutoRenewReader, cached?: (address: string) => Promise<AutoRenewDto>): void {
    this.reader = reader;
    this.cachedReader = cached ?? ((address) => reader(address));
  }

  /** Read from the database: for jobs and write paths (in `tx` when the object is built in one). */
  of(address: string, tx?: SqlExecutor): Promise<AutoRenewDto> {
    return this.reader(address, tx);
  }

  /** Read through the cache: only while serving a request the access guard admitted. */
  ofCached(address: string): Promise<AutoRenewDto> {
    return this.cachedReader(address);
  }
}
