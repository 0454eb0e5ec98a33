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

  register(reader: AutoRenewReader): void {
    this.reader = reader;
  }

  of(address: string, tx?: SqlExecutor): Promise<AutoRenewDto> {
    return this.reader(address, tx);
  }
}
