import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { type ClaimedDelivery, WebhookDeliveryRepository } from './webhook-delivery.repository.js';

/** Attempts under way at once in one process; they mostly wait on receivers, not on this process. */
const CONCURRENCY = 64;
/**
 * Claims are made for many deliveries at once: after a full claim the next waits until this many attempts are left,
 * so under a backlog every claim takes half the slots instead of one query per finished attempt.
 */
const LOW_WATER = CONCURRENCY / 2;
/**
 * How long a worker that found nothing due waits before it looks again: the delay a delivery can add on top of its
 * commit when the queue is empty. Polling, not LISTEN/NOTIFY: a transaction that notifies holds a cluster-wide lock
 * through its commit, which cut a renewal-shaped pgbench from 530-890 to 250-325 transactions/s on this machine; an
 * empty claim is one probe of a partial index.
 */
const IDLE_POLL_MS = 25;
/** After a failed claim (the database unreachable), so a worker does not hammer it or flood the log. */
const ERROR_RETRY_MS = 1000;

/**
 * Runs webhook deliveries in this process when `WEBHOOK_WORKERS` is on (the default; `npm run start:worker` runs a
 * process that does nothing else). The pending deliveries are the queue: a worker claims due ones in batches with a
 * lease (`locked_until`), attempts them and records each attempt, which releases the claim. Several processes share
 * the work (claims skip each other's rows); a claim whose process died is taken again when its lease runs out, so
 * every committed event is delivered at least once and no attempt is made twice while its claim is live.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliveryWorker.name);
  private readonly running = new Set<Promise<void>>();
  private pollTimer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  /**
   * Claim again as soon as half the slots are free: the last claim filled every free slot (more is probably due), or
   * a poll came while more than half were busy. Without it a poll that finds the slots busy would end the polling.
   */
  private claimWhenFree = false;
  private stopping = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveryService,
    private readonly repository: WebhookDeliveryRepository,
  ) {}

  onModuleInit(): void {
    // Picks up at once whatever is due, also what a crashed predecessor left once its leases ran out.
    if (this.config.workersEnabled) this.claim();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.pollTimer);
    await this.claiming;
    // Lets running attempts finish: each is bounded by the client's 10 s budget, and recording releases its claim.
    await Promise.all(this.running);
    await this.deliveries.flush();
  }

  private claim(): void {
    if (this.claiming || this.stopping) return;
    if (this.running.size > LOW_WATER) {
      this.claimWhenFree = true;
      return;
    }
    clearTimeout(this.pollTimer);
    const room = CONCURRENCY - this.running.size;
    let retryIn = IDLE_POLL_MS;
    this.claiming = this.repository
      .claimDue(room)
      .then((claimed) => {
        for (const delivery of claimed) this.start(delivery);
        this.claimWhenFree = claimed.length === room;
      })
      .catch((error: unknown) => {
        this.logger.warn(`claiming webhook deliveries failed: ${(error as Error).message}`);
        this.claimWhenFree = false;
        retryIn = ERROR_RETRY_MS;
      })
      .finally(() => {
        this.claiming = undefined;
        if (this.stopping) return;
        // With a backlog, finishing attempts claim again as soon as half the slots are free.
        if (this.claimWhenFree) this.claim();
        else this.pollTimer = setTimeout(() => this.claim(), retryIn);
      });
  }

  private start(delivery: ClaimedDelivery): void {
    const attempt = this.deliveries
      .deliverClaimed(delivery)
      .catch((error: unknown) => {
        // The claim stays until its lease runs out; then the delivery is attempted again.
        this.logger.warn(`webhook delivery ${delivery.id} failed: ${(error as Error).message}`);
      })
      .finally(() => {
        this.running.delete(attempt);
        if (this.claimWhenFree) this.claim();
      });
    this.running.add(attempt);
  }
}
