import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import type { Address, Hex, PublicClient } from 'viem';
import { InvalidationLog } from '../cache/invalidation-log.service.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { paymentGatewayOf } from '../config/settings.js';
import { Database } from '../database/database.service.js';
import { Sweeper } from '../database/sweeper.js';
import { Metrics } from '../metrics/metrics.service.js';
import { SubscriptionCredits } from '../subscriptions/subscription-credits.service.js';
import { SubscriptionLookup } from '../subscriptions/subscription-lookup.service.js';
import { AutoRenewRepository, type StoredMandate } from './auto-renew.repository.js';
import { dueIndex } from './auto-renew.sweeper.js';
import { AUTO_RENEW_CHAIN } from './chain-client.js';
import { creditCharge } from './charge-credit.js';
import { chargeTransfer, chargeTransferLogIndex } from './charge-transfer.js';
import { chargerAbi } from './mandate.js';

/** How often the follower reads the logs of the blocks confirmed since its last round. */
export const CHARGED_LOG_FOLLOW_INTERVAL_MS = 5_000;
/** Blocks per `eth_getLogs`: well within what public endpoints accept; a backlog is read in several. */
const BLOCKS_PER_READ = 1_000n;

/**
 * How long a charge left to the renewal sweep is looked at again: should its mandate be disabled or ended before the
 * sweep credits it, the follower credits it after all. Far longer than the sweep takes (its next round, or a lease).
 */
const LEFT_TO_THE_SWEEP_MS = 15 * 60_000;

/** One `Charged` log as the follower handles it. */
interface ChargedLog {
  mandateHash: Hex;
  periodIndex: bigint;
  transactionHash: Hex;
  blockNumber: bigint;
}

/**
 * The Charged-log follower (docs/auto-renew.md, "The Charged-log follower"): `charge` is open to anyone, and a
 * mandate stays chargeable on chain until its payer revokes it, also once Tollgate disabled or ended it. Where the
 * background workers run, under `erc20` with a charging contract, it reads the contract's `Charged` logs of the
 * confirmed blocks (`latest − (PAYMENT_CONFIRMATIONS − 1)`) from a stored cursor (`auto_renew_log_cursors`) and
 * credits one period for each charge of a mandate Tollgate knows that is no longer `enabled`, if its period index
 * is past `charged_through`. An `enabled` mandate's charge is the renewal sweep's (which reconciles charges made by
 * others too) unless its period is behind the one the subscription's end is due for; an unknown hash is none of
 * Tollgate's. The credit is the sweep's: SubscriptionCredits.creditPayment in
 * one transaction with `markCharged`, the payment citing the token's transfer (whose unique index refuses a second
 * credit). The period paid follows the subscription's current period end while it is in force, otherwise it starts
 * now: the charge of a mandate Tollgate no longer uses is no part of the subscription's schedule, so it is credited as
 * a manual payment is (no `paysAfter`). The cursor moves on only once a range's logs are handled, and only forward.
 */
@Injectable()
export class ChargedLogFollower extends Sweeper {
  private readonly chainId: number;
  /** The charging contract, lowercase. */
  private readonly charger: string;
  private readonly confirmations: bigint;
  private readonly credited: Counter;
  /** Charges of enabled mandates left to the sweep, by transaction hash, until it credited them or their time ran out. */
  private readonly leftToTheSweep = new Map<Hex, { log: ChargedLog; until: number }>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(AUTO_RENEW_CHAIN) private readonly client: PublicClient | null,
    private readonly db: Database,
    private readonly repository: AutoRenewRepository,
    private readonly credits: SubscriptionCredits,
    private readonly subscriptions: SubscriptionLookup,
    private readonly invalidations: InvalidationLog,
    metrics: Metrics,
  ) {
    const charger = config.autoRenewChargerAddress;
    super({
      enabled:
        config.workersEnabled &&
        paymentGatewayOf(config) === 'erc20' &&
        client !== null &&
        charger !== undefined,
      intervalMs: CHARGED_LOG_FOLLOW_INTERVAL_MS,
      name: 'Charged-log follower',
    });
    this.chainId = config.paymentChainId ?? 0;
    this.charger = charger?.toLowerCase() ?? '';
    this.confirmations = BigInt(Math.max(1, config.paymentConfirmations));
    this.credited = new Counter({
      name: 'tollgate_auto_renew_follower_credits_total',
      help: 'Periods credited by the Charged-log follower: charges on chain of mandates no longer enabled in Tollgate.',
      registers: [metrics.registry],
    });
  }

  /** Reads the confirmed blocks from the cursor on, a bounded range at a time, until caught up. */
  protected async sweep(): Promise<void> {
    const latest = await this.chain('read the block number', () => this.client!.getBlockNumber());
    const confirmed = latest - (this.confirmations - 1n);
    if (confirmed < 0n) return;
    // First start: from the block after the confirmed head; charges before it are not read.
    let from = await this.repository.logCursor(this.chainId, this.charger, confirmed + 1n);
    await this.lookAgain();
    while (from <= confirmed) {
      const to = from + BLOCKS_PER_READ - 1n < confirmed ? from + BLOCKS_PER_READ - 1n : confirmed;
      const logs = await this.charges(from, to);
      const mandates = await this.mandatesOf(logs);
      for (const log of logs) await this.handle(log, mandates.get(log.mandateHash.toLowerCase()));
      await this.repository.advanceLogCursor(this.chainId, this.charger, to + 1n);
      from = to + 1n;
    }
  }

  /** The contract's `Charged` logs of blocks `from` to `to`. */
  private async charges(from: bigint, to: bigint): Promise<ChargedLog[]> {
    const logs = await this.chain('read the Charged logs', () =>
      this.client!.getContractEvents({
        address: this.charger as Address,
        abi: chargerAbi,
        eventName: 'Charged',
        fromBlock: from,
        toBlock: to,
      }),
    );
    // Matched again: an endpoint may answer more than asked (the in-process EVM ignores some filters).
    return logs
      .filter(
        (log) =>
          log.address.toLowerCase() === this.charger &&
          log.blockNumber !== null &&
          log.blockNumber >= from &&
          log.blockNumber <= to &&
          log.transactionHash !== null,
      )
      .map((log) => ({
        mandateHash: log.args.mandateHash!,
        periodIndex: log.args.periodIndex!,
        transactionHash: log.transactionHash!,
        blockNumber: log.blockNumber!,
      }));
  }

  /** The mandates the logs name, by (lowercase) hash, in one read. */
  private async mandatesOf(logs: readonly ChargedLog[]): Promise<Map<string, StoredMandate>> {
    if (logs.length === 0) return new Map();
    const hashes = [...new Set(logs.map((log) => log.mandateHash.toLowerCase()))];
    const mandates = await this.repository.findByHashes(hashes);
    return new Map(mandates.map((mandate) => [mandate.mandateHash!, mandate]));
  }

  private async handle(log: ChargedLog, mandate: StoredMandate | undefined): Promise<void> {
    // Unknown: none of Tollgate's.
    if (mandate === undefined) return;
    if (mandate.chainId !== this.chainId || mandate.charger !== this.charger) return;
    if (log.periodIndex <= BigInt(mandate.chargedThrough ?? -1)) return;
    // Enabled: the renewal sweep's, for the period it is due for and later ones; one behind it (a manual renewal
    // moved the subscription's end past it while its charge was on its way, or someone charged it late) the sweep
    // never comes back to, and it is credited here.
    if (mandate.status === 'enabled' && !(await this.behindTheSweep(mandate, log.periodIndex))) {
      // Unless the mandate is disabled or ended before the sweep credits it: then no one else will.
      this.leftToTheSweep.set(log.transactionHash, { log, until: Date.now() + LEFT_TO_THE_SWEEP_MS });
      return;
    }
    const terms = {
      token: mandate.token! as Address,
      payer: mandate.address as Address,
      payee: mandate.payee! as Address,
      amount: BigInt(mandate.amountMinor),
    };
    const hash = log.transactionHash;
    const receipt = await this.chain('read a receipt', () => this.client!.getTransactionReceipt({ hash }));
    const logIndex = chargeTransferLogIndex(terms, receipt.logs);
    if (logIndex === undefined) {
      // The contract moves the signed amount or reverts: a token that moved something else is for an operator.
      this.logger.error({
        mandate: mandate.id,
        msg: `charge ${hash} of period ${log.periodIndex} holds no transfer of the mandate: not credited`,
      });
      return;
    }
    const transfer = chargeTransfer(this.chainId, terms, hash, logIndex);
    const charge = {
      index: Number(log.periodIndex),
      source: 'erc20' as const,
      amountMinor: terms.amount,
      transfer,
    };
    if (
      (await creditCharge(
        { db: this.db, repository: this.repository, credits: this.credits },
        mandate,
        charge,
      )) === 'credited'
    ) {
      this.credited.inc();
      this.logger.log({
        mandate: mandate.id,
        address: mandate.address,
        periodIndex: Number(log.periodIndex),
        txHash: transfer.txHash,
        msg: `credited a charge of a ${mandate.status} mandate`,
      });
    }
  }

  /**
   * The charges left to the sweep, handled again: dropped once credited (`charged_through` reached them) or after
   * LEFT_TO_THE_SWEEP_MS; credited here if their mandate is no longer enabled. Kept in memory: a restart in between
   * forgets them (docs/decisions/2026-11-28-charged-log-follower.md).
   */
  private async lookAgain(): Promise<void> {
    const entries = [...this.leftToTheSweep];
    const mandates = await this.mandatesOf(entries.map(([, { log }]) => log));
    for (const [hash, { log, until }] of entries) {
      const mandate = mandates.get(log.mandateHash.toLowerCase());
      const done = mandate === undefined || log.periodIndex <= BigInt(mandate.chargedThrough ?? -1);
      if (done || Date.now() > until) {
        this.leftToTheSweep.delete(hash);
      } else if (mandate.status !== 'enabled') {
        // Dropped only once handled: a failure leaves it for the next round.
        await this.handle(log, mandate);
        this.leftToTheSweep.delete(hash);
      }
    }
  }

  /** Whether the sweep is past `periodIndex`: the subscription's end is due for a later period of the mandate. */
  private async behindTheSweep(mandate: StoredMandate, periodIndex: bigint): Promise<boolean> {
    // As of now: a manual renewal committed before this read is seen.
    await this.invalidations.barrier();
    const { currentPeriodEnd } = await this.subscriptions.status(mandate.address as Address);
    if (currentPeriodEnd === null) return true;
    const due = dueIndex(mandate, new Date(currentPeriodEnd));
    return due !== null && periodIndex < BigInt(due);
  }

  /** A chain read; its failure is one short line (the round's warning), tried again next round. */
  private async chain<T>(what: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      throw new Error(`the chain's endpoint did not answer (could not ${what}): ${reason}`, {
        cause: error,
      });
    }
  }
}
