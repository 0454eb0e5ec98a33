import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { run, type Runner, type Task } from 'graphile-worker';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { graphileLogger } from './graphile-logger.js';
import { JobQueueSchema } from './job-queue-schema.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WEBHOOK_DELIVERY_TASK, WebhookDeliveryRepository } from './webhook-delivery.repository.js';

/** Deliveries attempted at once by one process; they mostly wait on receivers, not on this process. */
const CONCURRENCY = 16;
/**
 * graphile-worker's own pool (its LISTEN connection and the job fetch/complete queries), sized as it recommends so
 * no worker waits for a connection to pick up a job; idle connections are released after a few seconds.
 */
const QUEUE_POOL_SIZE = CONCURRENCY + 2;
/**
 * New jobs arrive through LISTEN/NOTIFY within milliseconds of their commit; polling only finds retries whose
 * time has come, so it bounds how late a retry can start.
 */
const POLL_INTERVAL_MS = 1000;
const SWEEP_INTERVAL_MS = 10_000;
const SWEEP_BATCH = 500;

interface DeliveryJob {
  deliveryId: string;
}

function isDeliveryJob(payload: unknown): payload is DeliveryJob {
  return typeof (payload as Partial<DeliveryJob> | null)?.deliveryId === 'string';
}

/**
 * Runs webhook deliveries in this process when `WEBHOOK_WORKERS` is on (the default; `npm run start:worker` runs a
 * process that does nothing else): graphile-worker for the jobs, and a sweep that re-enqueues deliveries whose job
 * was lost or whose worker died, so every committed event is delivered at least once.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliveryWorker.name);
  private runner: Runner | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly schema: JobQueueSchema,
    private readonly deliveries: WebhookDeliveryService,
    private readonly repository: WebhookDeliveryRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.schema.install();
    if (!this.config.workersEnabled) return;

    const deliver: Task = async (payload) => {
      if (!isDeliveryJob(payload)) throw new Error(`${WEBHOOK_DELIVERY_TASK} job without a deliveryId`);
      await this.deliveries.deliverDue(payload.deliveryId);
    };
    this.runner = await run({
      connectionString: this.config.databaseUrl,
      maxPoolSize: QUEUE_POOL_SIZE,
      concurrency: CONCURRENCY,
      pollInterval: POLL_INTERVAL_MS,
      noHandleSignals: true,
      taskList: { [WEBHOOK_DELIVERY_TASK]: deliver },
      parsedCronItems: [],
      logger: graphileLogger(this.logger),
    });
    this.runner.promise.catch((error: unknown) => {
      this.logger.error(`webhook delivery worker stopped: ${(error as Error).message}`);
    });

    // Once at start, which picks up whatever a crashed predecessor left, then periodically.
    this.sweep();
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.sweeping;
    // Lets running attempts finish (each is bounded by the client's 10 s budget), then closes the queue's pool.
    await this.runner?.stop();
  }

  private sweep(): void {
    if (this.sweeping) return;
    this.sweeping = this.repository
      .enqueueOverdue(SWEEP_BATCH)
      .then((count) => {
        if (count > 0) this.logger.warn(`re-enqueued ${count} overdue webhook deliveries`);
      })
      .catch((error: unknown) => {
        this.logger.warn(`sweeping overdue webhook deliveries failed: ${(error as Error).message}`);
      })
      .finally(() => {
        this.sweeping = undefined;
      });
  }
}
