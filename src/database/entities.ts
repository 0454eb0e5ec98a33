import { ApiKeyEntity } from '../api-keys/api-key.entity.js';
import { ConsumedChallengeEntity } from '../auth/consumed-challenge.entity.js';
import { RevokedTokenEntity } from '../auth/revoked-token.entity.js';
import { EventEntity } from '../events/event.entity.js';
import { CacheInvalidationEntity } from '../cache/cache-invalidation.entity.js';
import { IdempotencyKeyEntity } from '../subscriptions/idempotency/idempotency-key.entity.js';
import { PaymentEntity } from '../subscriptions/payment/payment.entity.js';
import { SubscriptionEventEntity } from '../subscriptions/subscription-event.entity.js';
import { SubscriptionEntity } from '../subscriptions/subscription.entity.js';
import { WebhookAttemptEntity } from '../webhooks/webhook-attempt.entity.js';
import { WebhookDeliveryEntity } from '../webhooks/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from '../webhooks/webhook-endpoint.entity.js';

/**
 * Every entity of the service. Listed explicitly rather than globbed so that the app, the TypeORM CLI and the tests
 * load exactly the same set, compiled or not.
 */
export const ENTITIES: Array<new () => unknown> = [
  ApiKeyEntity,
  ConsumedChallengeEntity,
  RevokedTokenEntity,
  EventEntity,
  CacheInvalidationEntity,
  SubscriptionEntity,
  SubscriptionEventEntity,
  PaymentEntity,
  IdempotencyKeyEntity,
  WebhookEndpointEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
];
