import { Inject, Injectable } from '@nestjs/common';
import { erc20Abi, getAddress, isAddressEqual, type Hex, type PublicClient } from 'viem';
import { WalletSignatureVerifier } from '../auth/signature/wallet-signature.verifier.js';
import { checksumAddress, storageAddress, type Address } from '../common/address/wallet-address.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { autoRenewOfferOf, type AutoRenewOffer } from '../config/settings.js';
import type { SqlExecutor } from '../database/database.service.js';
import { PlansService } from '../plans/plans.service.js';
import type { AutoRenewDto, SubscriptionDto } from '../subscriptions/dto/subscription.dto.js';
import { AUTO_RENEW_OFF, SubscriptionAutoRenew } from '../subscriptions/subscription-auto-renew.js';
import { SubscriptionLookup } from '../subscriptions/subscription-lookup.service.js';
import { AutoRenewErrors } from './auto-renew.errors.js';
import { AutoRenewRepository, type NewMandate, type StoredMandate } from './auto-renew.repository.js';
import { AUTO_RENEW_CHAIN } from './chain-client.js';
import { MandateReads } from './mandate-reads.service.js';
import { type EnableAutoRenewDto, FREE_DEFAULT_PERIODS, type MandateDto } from './dto/auto-renew.dto.js';
import { type Mandate, mandateHash } from './mandate.js';

/**
 * Registers, shows and stops automatic renewals. A mandate is checked in full before it is stored: its signature,
 * its terms against the subscription's plan and the settings, its start against the subscription's period end, and
 * the allowance the payer gave the charging contract (a shortfall is reported, not refused: the payer may approve
 * after signing). The renewal sweep (auto-renew.sweeper.ts) does the charging.
 */
@Injectable()
export class AutoRenewService {
  private readonly offer: AutoRenewOffer;
  private readonly leadMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: AutoRenewRepository,
    private readonly subscriptions: SubscriptionLookup,
    private readonly plans: PlansService,
    private readonly verifier: WalletSignatureVerifier,
    autoRenew: SubscriptionAutoRenew,
    reads: MandateReads,
    @Inject(AUTO_RENEW_CHAIN) private readonly client: PublicClient | null,
  ) {
    this.offer = autoRenewOfferOf(config);
    this.leadMs = config.autoRenewLeadSeconds * 1000;
    // Every status and entitlements read shows the automatic renewal: from a cache kept exact by the mandates'
    // trigger, for the requests the access guard admitted (SubscriptionLookup).
    autoRenew.register(
      (address, tx) => this.view(address, tx),
      async (address) => autoRenewView(await reads.findEnabled(address)),
    );
  }

  /** Registers the automatic renewal of `address`'s subscription, in place of any before it. */
  async enable(address: Address, body: EnableAutoRenewDto): Promise<SubscriptionDto> {
    const offer = this.offer;
    if (offer.gateway === 'unavailable') throw AutoRenewErrors.unavailable(offer.why);
    const subscription = await this.subscriptions.status(address);
    if (!subscription.active || subscription.cancelAtPeriodEnd || subscription.currentPeriodEnd === null) {
      throw AutoRenewErrors.subscriptionNotActive();
    }
    const plan = await this.plans.find(subscription.plan.id);
    const endMs = Date.parse(subscription.currentPeriodEnd);
    // Period 0 may be charged from its start on: rounded down, it begins no later than the period end.
    const start = Math.floor(endMs / 1000);
    const owner = storageAddress(address);
    const common = {
      address: owner,
      periodSeconds: plan.periodSeconds,
      startAt: new Date(start * 1000),
      nextChargeAt: new Date(endMs - this.leadMs),
    };
    let mandate: NewMandate;
    if (offer.gateway === 'free') {
      if (body.mandate !== undefined || body.signature !== undefined)
        throw AutoRenewErrors.mandateNotExpected();
      mandate = {
        ...common,
        gateway: 'free',
        chainId: null,
        charger: null,
        token: null,
        payee: null,
        amountMinor: '0',
        periods: body.periods ?? FREE_DEFAULT_PERIODS,
        salt: null,
        mandateHash: null,
        signature: null,
        allowanceShortfall: '0',
      };
    } else {
      if (body.mandate === undefined || body.signature === undefined) throw AutoRenewErrors.mandateRequired();
      const signed = toMandate(body.mandate);
      checkTerms(signed, {
        address,
        offer,
        price: plan.pricePerPeriod,
        periodSeconds: plan.periodSeconds,
        start,
      });
      const hash = mandateHash(signed, offer.chainId, offer.charger);
      const signature = body.signature.toLowerCase() as Hex;
      const verdict = await this.verifier.verifyHash(signed.payer, hash, signature);
      if (verdict === 'unverifiable') throw AutoRenewErrors.chainUnavailable();
      // The contract recovers 65-byte ECDSA signatures only (an EOA's compact one would verify here, then fail).
      if (verdict === 'invalid' || (signature.length === 2 + 128 && (await this.isEoa(signed.payer)))) {
        throw AutoRenewErrors.badSignature(offer.chainId, offer.charger);
      }
      const allowance = await this.allowance(signed.payer, offer);
      const shortfall = allowance >= signed.amount ? 0n : signed.amount - allowance;
      mandate = {
        ...common,
        gateway: 'erc20',
        chainId: offer.chainId,
        charger: offer.charger.toLowerCase(),
        token: offer.token.toLowerCase(),
        payee: offer.payee.toLowerCase(),
        amountMinor: signed.amount.toString(),
        periods: Number(signed.periods),
        salt: signed.salt.toLowerCase(),
        mandateHash: hash,
        signature,
        allowanceShortfall: shortfall.toString(),
      };
    }
    if ((await this.repository.replace(mandate)) === null) throw AutoRenewErrors.mandateInUse();
    return this.after(address);
  }

  /** Stops it: no further charge. The paid period runs to its end. */
  async disable(address: Address): Promise<SubscriptionDto> {
    if (!(await this.repository.disable(storageAddress(address)))) throw AutoRenewErrors.notEnabled();
    return this.after(address);
  }

  /** Tries a failed charge again at the sweep's next round (after the payer fixed what stood in the way). */
  async retry(address: Address): Promise<SubscriptionDto> {
    const owner = storageAddress(address);
    if (!(await this.repository.retryNow(owner))) {
      if ((await this.repository.findEnabled(owner)) === null) throw AutoRenewErrors.notEnabled();
      throw AutoRenewErrors.nothingToRetry();
    }
    return this.after(address);
  }

  /**
   * The subscription after this request's own change of its mandate: the lookup's cache answers as of the request's
   * arrival, which this change came after, so the automatic renewal is read from the database.
   */
  private async after(address: Address): Promise<SubscriptionDto> {
    const subscription = await this.subscriptions.status(address);
    return { ...subscription, autoRenew: await this.view(storageAddress(address)) };
  }

  /**
   * Reads the allowance again once a charge spent part of it, so that `allowanceShortfall` warns before the next
   * charge fails rather than after. Under `free`, or when the chain cannot be read, nothing changes: the next
   * charge's simulation reports a shortfall anyway.
   */
  async refreshShortfall(mandate: Pick<StoredMandate, 'id' | 'address' | 'amountMinor'>): Promise<void> {
    const offer = this.offer;
    if (offer.gateway !== 'erc20') return;
    let allowance: bigint;
    try {
      allowance = await this.allowance(getAddress(mandate.address), offer);
    } catch {
      return;
    }
    const amount = BigInt(mandate.amountMinor);
    await this.repository.setShortfall(mandate.id, allowance >= amount ? 0n : amount - allowance);
  }

  /** The automatic renewal as the subscription object shows it. */
  async view(address: string, tx?: SqlExecutor): Promise<AutoRenewDto> {
    return autoRenewView(await this.repository.findEnabled(address, tx));
  }

  private async allowance(
    payer: Address,
    offer: Extract<AutoRenewOffer, { gateway: 'erc20' }>,
  ): Promise<bigint> {
    try {
      return await this.client!.readContract({
        address: offer.token,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [payer, offer.charger],
      });
    } catch {
      throw AutoRenewErrors.chainUnavailable();
    }
  }

  private async isEoa(address: Address): Promise<boolean> {
    try {
      const code = await this.client!.getCode({ address });
      return code === undefined || code === '0x';
    } catch {
      throw AutoRenewErrors.chainUnavailable();
    }
  }
}

function toMandate(dto: MandateDto): Mandate {
  return {
    payer: getAddress(dto.payer),
    token: getAddress(dto.token),
    payee: getAddress(dto.payee),
    amount: BigInt(dto.amount),
    periodSeconds: BigInt(dto.periodSeconds),
    start: BigInt(dto.start),
    periods: BigInt(dto.periods),
    salt: dto.salt.toLowerCase() as Hex,
  };
}

/** The terms must be the subscription's: its wallet, the configured token and payee, its plan, its period end. */
function checkTerms(
  mandate: Mandate,
  expected: {
    address: Address;
    offer: Extract<AutoRenewOffer, { gateway: 'erc20' }>;
    price: bigint;
    periodSeconds: number;
    start: number;
  },
): void {
  const { address, offer } = expected;
  if (!isAddressEqual(mandate.payer, address)) throw AutoRenewErrors.wrongPayer(checksumAddress(address));
  if (!isAddressEqual(mandate.token, offer.token)) throw AutoRenewErrors.wrongToken(offer.token);
  if (!isAddressEqual(mandate.payee, offer.payee)) throw AutoRenewErrors.wrongPayee(offer.payee);
  if (mandate.amount !== expected.price) throw AutoRenewErrors.wrongAmount(expected.price.toString());
  if (mandate.periodSeconds !== BigInt(expected.periodSeconds)) {
    throw AutoRenewErrors.wrongPeriod(expected.periodSeconds);
  }
  if (mandate.start !== BigInt(expected.start)) throw AutoRenewErrors.wrongStart(expected.start);
}

/** A stored mandate as the subscription object shows it. */
function autoRenewView(mandate: StoredMandate | null): AutoRenewDto {
  return mandate === null ? AUTO_RENEW_OFF : autoRenewDto(mandate);
}

export function autoRenewDto(mandate: StoredMandate): AutoRenewDto {
  const endsAt = new Date(mandate.startAt.getTime() + mandate.periods * mandate.periodSeconds * 1000);
  return {
    enabled: mandate.status === 'enabled',
    nextChargeAt: mandate.nextChargeAt.toISOString(),
    amount: mandate.amountMinor,
    token: mandate.token && checksumAddress(mandate.token),
    endsAt: endsAt.toISOString(),
    ...(BigInt(mandate.allowanceShortfall) > 0n && { allowanceShortfall: mandate.allowanceShortfall }),
    ...(mandate.mandateHash !== null && { mandateHash: mandate.mandateHash }),
    failure:
      mandate.failureReason === null
        ? null
        : {
            reason: mandate.failureReason,
            message: mandate.failureMessage ?? '',
            at: mandate.failedAt!.toISOString(),
          },
  };
}
