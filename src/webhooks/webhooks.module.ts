import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { GuardedHttpClient } from './delivery/guarded-http.client.js';
import { DeliveryQueue } from './delivery/queue/delivery-queue.js';
import { PostgresDeliveryQueue } from './delivery/queue/postgres-delivery-queue.js';
import { WebhookDeliveryRepository } from './delivery/webhook-delivery.repository.js';
import { WebhookDeliveryService } from './delivery/webhook-delivery.service.js';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker.js';
import { WebhookFanOut } from './delivery/webhook-fan-out.handler.js';
import { WebhookUrlGuard } from './delivery/webhook-url.guard.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhook configurations and signed, at-least-once delivery of every event to them: the outbox handler fans events
 * out into pending deliveries in the producer's transaction, and the delivery workers claim and attempt them.
 */
@Module({
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookDeliveryRepository,
    { provide: DeliveryQueue, useClass: PostgresDeliveryQueue },
    WebhookDeliveryService,
    WebhookFanOut,
    WebhookDeliveryWorker,
    {
      provide: WebhookUrlGuard,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new WebhookUrlGuard({
          allowHttp: config.webhookAllowHttp,
          allowPrivate: config.webhookAllowPrivate,
          nameSettings: config.nodeEnv !== 'production',
        }),
    },
    {
      provide: GuardedHttpClient,
      inject: [WebhookUrlGuard],
      useFactory: (guard: WebhookUrlGuard) => new GuardedHttpClient(guard),
    },
  ],
})
export class WebhooksModule {}
