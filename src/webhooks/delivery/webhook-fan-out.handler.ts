import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import type { Sql } from '../../database/sql.js';
import { ReactsToEvents, type OutboxHandler, type RecordedEvent } from '../../events/event-outbox.service.js';
import { SUBSCRIPTION_EVENT_TYPES } from '../../events/event-types.js';
import { DeliveryQueue } from './queue/delivery-queue.js';
import { TEST_EVENT_TYPE } from './webhook-delivery.service.js';
import { webhookBody } from './webhook-message.js';

/**
 * Turns every recorded event into deliveries, inside the producer's transaction: to the enabled configurations of
 * the wallet the event is about that subscribe to its type, and, for subscription events, to operators' too.
 */
@Injectable()
@ReactsToEvents()
export class WebhookFanOut implements OutboxHandler {
  private readonly operators: readonly string[];

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly queue: DeliveryQueue,
  ) {
    this.operators = [...config.operatorAddresses];
  }

  followUp(event: RecordedEvent): Sql | undefined {
    // Test events go to the configurations the caller picked, whatever those subscribe to (see sendTest).
    if (event.type === TEST_EVENT_TYPE) return undefined;
    return this.queue.fanOut({
      eventId: event.id,
      eventType: event.type,
      address: event.address.toLowerCase(),
      body: webhookBody(event),
      operators: SUBSCRIPTION_EVENT_TYPES.includes(event.type) ? this.operators : [],
    });
  }
}
