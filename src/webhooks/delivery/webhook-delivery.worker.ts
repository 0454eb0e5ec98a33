import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import {
  type ClaimedDelivery,
  DELIVERY_CHANNEL,
  WebhookDeliveryRepository,
} from './webhook-delivery.repository.js';

/** Attempts under way at once in one process; they mostly wait on receivers, not on this process. */
const CONCURRENCY = 64;
/**
 * Claims are made for many deliveries at once: after a full claim the next waits until this many attempts are left,
 * so under a backlog every claim takes half the slots instead of one query per finished attempt.
 */
const LOW_WATER = CONCURRENCY / 2;
/** Notifications wake workers within milliseconds of a commit; polling finds retries whose time has come. */
const POLL_INTERVAL_MS = 1000;
const RECONNECT_DELAY_MS = 1000;

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
  private listener: pg.Client | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  /** Something may be due that the claim under way or the full slots kept this process from taking. */
  private wanted = false;
  private wakeScheduled = false;
  private stopping = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveryService,
    private readonly repository: WebhookDeliveryRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.config.workersEnabled) return;
    await this.listen().catch((error: unknown) => {
      this.logger.warn(`webhook notifications unavailable, polling only: ${(error as Error).message}`);
    });
    this.pollTimer = setInterval(() => this.wake(), POLL_INTERVAL_MS).unref();
    // Picks up at once whatever is due, also what a crashed predecessor left once its leases ran out.
    this.wake();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => undefined);
    await this.claiming;
    // Lets running attempts finish: each is bounded by the client's 10 s budget, and recording releases its claim.
    await Promise.all(this.running);
    await this.deliveries.flush();
  }

  /** Claims as soon as the current turn of the event loop ends, once for all the wake-ups it brought. */
  private wake(): void {
    this.wanted = true;
    if (this.wakeScheduled || this.stopping) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.claim();
    });
  }

  private claim(): void {
    if (this.claiming || this.stopping || !this.wanted) return;
    if (this.running.size > LOW_WATER) return;
    const room = CONCURRENCY - this.running.size;
    this.wanted = false;
    this.claiming = this.repository
      .claimDue(room)
      .then((claimed) => {
        for (const delivery of claimed) this.start(delivery);
        // A full claim means more may be due: take them when slots free up.
        if (claimed.length === room) this.wanted = true;
      })
      .catch((error: unknown) => {
        this.logger.warn(`claiming webhook deliveries failed: ${(error as Error).message}`);
      })
      .finally(() => {
        this.claiming = undefined;
        this.claim();
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
        this.claim();
      });
    this.running.add(attempt);
  }

  private async listen(): Promise<void> {
    if (!this.config.databaseUrl) throw new Error('The delivery worker needs DATABASE_URL');
    const client = new pg.Client({ connectionString: this.config.databaseUrl });
    client.on('notification', () => this.wake());
    client.on('error', (error) => {
      this.logger.warn(`webhook notification connection lost: ${error.message}`);
      this.reconnect(client);
    });
    client.on('end', () => this.reconnect(client));
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
    } catch (error) {
      this.reconnect(client);
      throw error;
    }
  }

  /** Until the connection is back, polling alone finds new deliveries (within a second). */
  private reconnect(lost: pg.Client): void {
    if (this.stopping || this.listener !== lost) return;
    this.listener = undefined;
    lost.end().catch(() => undefined);
    this.reconnectTimer = setTimeout(() => {
      this.listen()
        .then(() => this.wake())
        .catch((error: unknown) => {
          this.logger.warn(`webhook notifications unavailable: ${(error as Error).message}`);
        });
    }, RECONNECT_DELAY_MS).unref();
  }
}
