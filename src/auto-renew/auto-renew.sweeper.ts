import { Inject, Injectable } from '@nestjs/common';
import type { Address, Hex } from 'viem';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { Database } from '../database/database.service.js';
import { isDatabaseUnavailable } from '../database/database.errors.js';
import { Sweeper } from '../database/sweeper.js';
import { RepeatingJob } from '../common/jobs/repeating-job.js';
import { Metrics } from '../metrics/metrics.service.js';
import { PlansService } from '../plans/plans.service.js';
import { SubscriptionCredits } from '../subscriptions/subscription-credits.service.js';
import { SubscriptionDunning } from '../subscriptions/subscription-dunning.service.js';
import { SubscriptionLookup } from '../subscriptions/subscription-lookup.service.js';
import { AutoRenewRepository, type StoredMandate } from './auto-renew.repository.js';
import { AutoRenewService } from './auto-renew.service.js';
import { creditCharge } from './charge-credit.js';
import {
  CHARGE_EXECUTOR,
  type ChargeExecutor,
  type ChargeOutcome,
  type DueCharge,
} from './charge-executor.js';
import type { Mandate } from './mandate.js';

/** How often the sweep looks for due charges. */
export const AUTO_RENEW_SWEEP_INTERVAL_MS = 5_000;
/** Mandates claimed per batch, per charge worked on at once: a batch is through well within its lease. */
const BATCH_PER_WORKER = 4;
/** How long a claim holds a mandate: past it, another instance takes over (the executor is idempotent). */
const LEASE_SECONDS = 300;
/** Due mandates looked at per round for a subscription to hold while the charges before them are made. */
const BACKLOG_SIZE = 1_000;
/** When a charge is in flight (sent, not yet confirmed), it is asked about again this much later. */
const PENDING_RECHECK_MS = 15_000;
/**
 * The chain's endpoint down: asked again after a quarter of the time since the charge fell due, within these
 * bounds (seconds apart at first, every five minutes through a long outage). Not the dunning schedule: nothing failed.
 */
const CHAIN_RETRY_MIN_MS = 15_000;
const CHAIN_RETRY_MAX_MS = 300_000;
/**
 * A charge asked for this close to the period end (or after it) may still wait for the chain when the period ends:
 * the subscription is held in force first (SubscriptionDunning.holdForCharge), not only once the executor answers.
 */
const HOLD_BEFORE_END_MS = 60_000;

/** A failure that no retry can mend without a new mandate ends the renewal: a cancel at period end. */
const STOPPING = new Set([
  'mandate_revoked',
  'mandate_ended',
  'terms_changed',
  'bad_signature',
  'invalid_mandate',
]);

/**
 * The renewal sweep (background workers only): for each enabled mandate whose subscription's period end is within
 * AUTO_RENEW_LEAD_SECONDS, charges the period that follows it, once. The due period index comes from the
 * subscription's period end, so a manual renewal that already paid for it moves the index on; the mandate is
 * claimed with a lease so that one instance works on it at a time; the executor is called outside any transaction;
 * a `charged` outcome is credited through SubscriptionCredits.creditPayment exactly as a manual renewal, in one
 * transaction with `charged_through` (which refuses a second credit of an index) and the payment row (whose unique
 * transfer refuses a second credit of a transfer). A failure is dunning (SubscriptionDunning): `past_due` and
 * retries on AUTO_RENEW_RETRY_SECONDS, or a cancel at period end when the mandate can no longer charge. A charge
 * that waits for the chain (in flight, or the endpoint down) is no failure: the subscription is held in force
 * through the grace and the charge asked about again soon; a subscription that ran out all the same ends its
 * mandate only once the executor says no charge of it is in flight, and a late one still pays the period it was for.
 */
@Injectable()
export class AutoRenewSweeper extends Sweeper {
  private readonly leadMs: number;
  private readonly retryMs: readonly number[];
  private readonly gateway: 'free' | 'erc20';
  private readonly concurrency: number;
  private readonly batchSize: number;
  /** As the last round found it, before working. */
  private oldestDueSeconds = 0;
  private readonly enabled: boolean;
  private readonly backlog = new RepeatingJob(() => this.holdBacklogRound(), AUTO_RENEW_SWEEP_INTERVAL_MS);

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly db: Database,
    private readonly repository: AutoRenewRepository,
    @Inject(CHARGE_EXECUTOR) private readonly executor: ChargeExecutor | null,
    private readonly subscriptions: SubscriptionLookup,
    private readonly credits: SubscriptionCredits,
    private readonly dunning: SubscriptionDunning,
    private readonly plans: PlansService,
    private readonly invalidations: InvalidationLog,
    private readonly autoRenew: AutoRenewService,
    metrics: Metrics,
  ) {
    // Under `erc20` the keeper's executor collects the charges; without one nothing is charged.
    super({
      enabled: config.workersEnabled && executor !== null,
      intervalMs: AUTO_RENEW_SWEEP_INTERVAL_MS,
      name: 'renewal sweep',
    });
    this.enabled = config.workersEnabled && executor !== null;
    this.leadMs = config.autoRenewLeadSeconds * 1000;
    this.retryMs = config.autoRenewRetrySeconds.map((seconds) => seconds * 1000);
    this.gateway = config.paymentGateway === 'erc20' ? 'erc20' : 'free';
    this.concurrency = config.autoRenewConcurrency;
    this.batchSize = config.autoRenewConcurrency * BATCH_PER_WORKER;
    metrics.gauge(
      'tollgate_auto_renew_oldest_due_seconds',
      'Seconds the oldest enabled mandate had been due (its next charge or retry) without being worked on, as the last renewal sweep round found it (0: none).',
      [],
      (set) => set(this.oldestDueSeconds),
    );
  }

  protected async sweep(): Promise<void> {
    // One read per round: how far behind the rounds are, which grows when the keeper cannot keep up.
    this.oldestDueSeconds = await this.repository.oldestDueSeconds();
    return this.drain(() => this.batch(), this.batchSize, 'worked on due automatic renewals');
  }

  private async batch(): Promise<number> {
    const { mandates } = await this.repository.claimDue(this.batchSize, LEASE_SECONDS);
    if (mandates.length === 0) return 0;
    // The subscriptions are read through their cache: as of now once the barrier is passed.
    await this.invalidations.barrier();
    // AUTO_RENEW_CONCURRENCY charges at a time: each mostly waits for its block, and the executor takes nonces and
    // broadcasts in turn, so that the charges of one batch share blocks instead of waiting for one each.
    let next = 0;
    const worker = async () => {
      while (next < mandates.length) {
        const mandate = mandates[next++]!;
        try {
          await this.work(mandate);
        } catch (error) {
          // The lease runs out and the mandate is tried again then.
          this.logger.warn({
            mandate: mandate.id,
            msg: `automatic renewal failed: ${(error as Error).message}`,
          });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, mandates.length) }, worker));
    return mandates.length;
  }

  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    if (this.enabled && this.gateway === 'erc20') this.backlog.start();
  }

  override async onModuleDestroy(): Promise<void> {
    await Promise.all([super.onModuleDestroy(), this.backlog.stop()]);
  }

  /**
   * More charges due together than are made before their periods end: the subscriptions of due mandates not charged
   * yet (waiting their turn, claimed or not) are held in force, as a charge waiting for the chain is, once their end
   * is near, so a backlog of the keeper's never lets lapse a subscription its mandate would have renewed. Only where
   * the sweep would charge; the charge, when its turn comes, pays the period after the end it was due for. Its own
   * job beside the rounds, which may be busy with one batch for minutes.
   */
  private async holdBacklog(): Promise<void> {
    const waiting = await this.repository.due(BACKLOG_SIZE);
    if (waiting.length === 0) return;
    await this.invalidations.barrier();
    const endsBefore = Date.now() + HOLD_BEFORE_END_MS;
    for (const mandate of waiting) {
      const subscription = await this.subscriptions.status(mandate.address as Address);
      if (!subscription.active || subscription.cancelAtPeriodEnd || subscription.graceEndsAt !== null)
        continue;
      const periodEnd = new Date(subscription.currentPeriodEnd!);
      if (periodEnd.getTime() >= endsBefore) continue;
      const index = dueIndex(mandate, periodEnd);
      if (index === null || index <= (mandate.chargedThrough ?? -1) || index >= mandate.periods) continue;
      await this.hold(mandate, periodEnd);
    }
  }

  private async holdBacklogRound(): Promise<void> {
    try {
      await this.holdBacklog();
    } catch (error) {
      if (!isDatabaseUnavailable(error))
        this.logger.warn(`holding the renewal backlog failed: ${(error as Error).message}`);
    }
  }

  private async work(mandate: StoredMandate): Promise<void> {
    const subscription = await this.subscriptions.status(mandate.address as Address);
    if (subscription.currentPeriodEnd === null) {
      return this.repository.end(undefined, mandate.id, 'subscription_ended');
    }
    const periodEnd = new Date(subscription.currentPeriodEnd);
    if (!subscription.active) return this.settleLapsed(mandate, periodEnd);
    if (subscription.cancelAtPeriodEnd) {
      // Canceled: nothing to charge; once the period is over the subscription ends the mandate above.
      return this.repository.reschedule(mandate.id, later(periodEnd), false);
    }
    const dueAt = new Date(periodEnd.getTime() - this.leadMs);
    const index = dueIndex(mandate, periodEnd);
    if (index === null || index <= (mandate.chargedThrough ?? -1)) {
      // The period end is before the mandate starts, or not moved by the last credit yet: look again later.
      return this.repository.reschedule(mandate.id, later(dueAt), false);
    }
    if (Date.now() < dueAt.getTime()) {
      // A manual renewal moved the period end on: its charge is due later, and any failure is behind it.
      return this.repository.reschedule(mandate.id, dueAt, true);
    }
    if (index >= mandate.periods) {
      return this.stop(
        mandate,
        'mandate_ended',
        'The mandate has no period left: register a new one to go on renewing automatically.',
      );
    }
    const plan = await this.plans.find(subscription.plan.id);
    const priceChanged = this.gateway === 'erc20' && plan.pricePerPeriod !== BigInt(mandate.amountMinor);
    if (priceChanged || plan.periodSeconds !== mandate.periodSeconds) {
      return this.stop(
        mandate,
        'terms_changed',
        "The plan's price or period is no longer the mandate's: register a new mandate with the plan's terms.",
      );
    }
    // Under `free` a charge is collected as it is asked for: nothing can wait over the end.
    if (this.gateway === 'erc20' && periodEnd.getTime() - Date.now() < HOLD_BEFORE_END_MS) {
      await this.hold(mandate, periodEnd);
    }
    const outcome = await this.executor!.charge(dueCharge(mandate, index));
    await this.record(mandate, index, periodEnd, outcome);
  }

  /**
   * The subscription is no longer in force (over, or canceled and past its end). A charge of the period after its
   * end may still be in flight (the grace ran out while the chain was waited for): it is asked about, never sent
   * anew, and credited from that period end once confirmed. Only when none is in flight does the mandate end.
   */
  private async settleLapsed(mandate: StoredMandate, periodEnd: Date): Promise<void> {
    const index = dueIndex(mandate, periodEnd);
    const outcome =
      index === null || index <= (mandate.chargedThrough ?? -1) || index >= mandate.periods
        ? null
        : await this.executor!.settle(dueCharge(mandate, index));
    if (outcome === null || (outcome.kind === 'failed' && outcome.failure !== 'chain_unavailable')) {
      return this.repository.end(undefined, mandate.id, 'subscription_ended');
    }
    if (outcome.kind === 'charged') return this.credit(mandate, index!, periodEnd, outcome);
    return this.repository.reschedule(mandate.id, new Date(Date.now() + PENDING_RECHECK_MS), false);
  }

  /** Holds the subscription in force while the charge of the period after `periodEnd` waits for the chain. */
  private hold(mandate: StoredMandate, periodEnd: Date): Promise<boolean> {
    return this.db.transaction((tx) => this.dunning.holdForCharge(tx, mandate.address, periodEnd));
  }

  private async record(
    mandate: StoredMandate,
    index: number,
    periodEnd: Date,
    outcome: ChargeOutcome,
  ): Promise<void> {
    switch (outcome.kind) {
      case 'charged':
        return this.credit(mandate, index, periodEnd, outcome);
      case 'pending':
        await this.hold(mandate, periodEnd);
        return this.repository.reschedule(mandate.id, new Date(Date.now() + PENDING_RECHECK_MS), false);
      case 'failed':
        break;
    }
    const { failure, detail, retryable } = outcome;
    if (failure === 'chain_unavailable') {
      // Not the payer's doing, and not a payment that failed: no dunning, no event; asked again soon.
      await this.hold(mandate, periodEnd);
      const sinceDue = Date.now() - (periodEnd.getTime() - this.leadMs);
      const delay = Math.min(CHAIN_RETRY_MAX_MS, Math.max(CHAIN_RETRY_MIN_MS, Math.floor(sinceDue / 4)));
      return this.repository.reschedule(mandate.id, new Date(Date.now() + delay), false);
    }
    if (failure === 'period_not_started')
      return this.repository.reschedule(mandate.id, later(periodEnd), false);
    if (failure === 'already_charged') {
      // Charged by someone else's call: the executor reports it as charged once it has reconciled the transfer.
      return this.repository.reschedule(mandate.id, new Date(Date.now() + PENDING_RECHECK_MS), false);
    }
    if (!retryable || STOPPING.has(failure)) return this.stop(mandate, failure, detail);
    const delay = this.retryMs[Math.min(mandate.attempts, this.retryMs.length - 1)]!;
    const nextChargeAt = new Date(Date.now() + delay);
    await this.db.transaction(async (tx) => {
      await this.dunning.paymentFailed(tx, mandate.address, periodEnd, {
        reason: failure,
        message: detail,
        nextAttemptAt: nextChargeAt,
      });
      await this.repository.recordFailure(
        tx,
        mandate.id,
        { reason: failure, message: detail, nextChargeAt },
        null,
      );
    });
  }

  /**
   * Credits a collected period, once: `charged_through` and the payment's unique transfer both refuse a second. The
   * period paid is the one after `periodEnd`, also when the charge confirmed after that end had passed.
   */
  private async credit(
    mandate: StoredMandate,
    index: number,
    periodEnd: Date,
    outcome: Extract<ChargeOutcome, { kind: 'charged' }>,
  ): Promise<void> {
    const credited = await creditCharge(
      { db: this.db, repository: this.repository, credits: this.credits },
      mandate,
      {
        index,
        source: this.gateway,
        amountMinor: outcome.amountMinor,
        transfer: outcome.transfer,
        paysAfter: periodEnd,
      },
      async (tx, renewed) => {
        const nextEnd = Date.parse(renewed.currentPeriodEnd!);
        await this.repository.scheduleNext(tx, mandate.id, new Date(nextEnd - this.leadMs));
      },
    );
    // The transfer was credited already (a manual renewal citing it): the period is paid, marked so; look again.
    if (credited === 'transfer_used') await this.repository.reschedule(mandate.id, new Date(), true);
    // The charge spent part of the allowance: the payer learns of a shortfall before the next charge fails.
    await this.autoRenew.refreshShortfall(mandate);
  }

  /** The mandate can no longer charge: the subscription is canceled at its period end, and the mandate ended. */
  private async stop(mandate: StoredMandate, reason: string, message: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.dunning.stopRenewal(tx, mandate.address, { reason, message });
      await this.repository.end(tx, mandate.id, reason);
    });
  }
}

/** The mandate's period index that follows a subscription period ending at `periodEnd`; null before its start. */
export function dueIndex(
  mandate: Pick<StoredMandate, 'startAt' | 'periodSeconds'>,
  periodEnd: Date,
): number | null {
  const sinceStart = periodEnd.getTime() - mandate.startAt.getTime();
  if (sinceStart < 0) return null;
  return Math.floor(sinceStart / (mandate.periodSeconds * 1000));
}

/** `at`, or a minute from now if that is sooner: a mandate is never looked at again in the same breath. */
function later(at: Date): Date {
  return new Date(Math.max(at.getTime(), Date.now() + 60_000));
}

function dueCharge(mandate: StoredMandate, index: number): DueCharge {
  return {
    mandateHash: (mandate.mandateHash ?? `0x${'0'.repeat(64)}`) as Hex,
    mandate: toMandate(mandate),
    signature: (mandate.signature ?? '0x') as Hex,
    periodIndex: BigInt(index),
  };
}

function toMandate(mandate: StoredMandate): Mandate {
  const zero = '0x0000000000000000000000000000000000000000' as Address;
  return {
    payer: mandate.address as Address,
    token: (mandate.token ?? zero) as Address,
    payee: (mandate.payee ?? zero) as Address,
    amount: BigInt(mandate.amountMinor),
    periodSeconds: BigInt(mandate.periodSeconds),
    start: BigInt(Math.floor(mandate.startAt.getTime() / 1000)),
    periods: BigInt(mandate.periods),
    salt: (mandate.salt ?? `0x${'0'.repeat(64)}`) as Hex,
  };
}
