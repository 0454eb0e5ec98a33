import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { DeliveryQueue } from './queue/delivery-queue.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

/**
 * Runs webhook deliveries in this process when `WEBHOOK_WORKERS` is on (the default; `npm run start:worker` runs a
 * process that does nothing else): the queue hands it due deliveries, and each is attempted and recorded by the
 * delivery service. Several processes share the work; every committed event is delivered at least once.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnModuleInit, OnModuleDestroy {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveryService,
    private readonly queue: DeliveryQueue,
  ) {}

  onModuleInit(): void {
    if (this.config.workersEnabled)
      this.queue.consume((delivery) => this.deliveries.deliverClaimed(delivery));
  }

  // Lets running attempts finish: each is bounded by the client's 10 s budget, and recording releases its claim.
  async onModuleDestroy(): Promise<void> {
    await this.queue.stop();
  }
}
