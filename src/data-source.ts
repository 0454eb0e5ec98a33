import { DataSource } from 'typeorm';
import { MandateEntity } from './auto-renew/mandate.entity.js';
import { ChargedLogCursorEntity } from './auto-renew/charged-log-cursor.entity.js';
import { ApiKeyEntity } from './api-keys/api-key.entity.js';
import { ApiKeyUsageDailyEntity } from './api-keys/api-key-usage-daily.entity.js';
import { ConsumedChallengeEntity } from './auth/consumed-challenge.entity.js';
import { RevokedTokenEntity } from './auth/revoked-token.entity.js';
import { SessionCutoffEntity } from './auth/session-cutoff.entity.js';
import { KeeperChargeEntity } from './auto-renew/keeper/keeper-charge.entity.js';
import { KeeperNonceEntity } from './auto-renew/keeper/keeper-nonce.entity.js';
import { EventEntity } from './events/event.entity.js';
import { PlanEntity } from './plans/plan.entity.js';
import { CacheInvalidationEntity } from './cache/cache-invalidation.entity.js';
import { CacheLeaseEntity } from './cache/cache-lease.entity.js';
import { IdempotencyKeyEntity } from './subscriptions/idempotency/idempotency-key.entity.js';
import { PaymentEntity } from './subscriptions/payment/payment.entity.js';
import { SubscriptionEventEntity } from './subscriptions/subscription-event.entity.js';
import { SubscriptionReminderEntity } from './subscriptions/reminders/subscription-reminder.entity.js';
import { SubscriptionEntity } from './subscriptions/subscription.entity.js';
import { SubscriptionTrialEntity } from './subscriptions/subscription-trial.entity.js';
import { WebhookAttemptEntity } from './webhooks/webhook-attempt.entity.js';
import { WebhookDeliveryEntity } from './webhooks/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './webhooks/webhook-endpoint.entity.js';
import { dataSourceOptions } from './database/data-source.js';

/**
 * Every entity of the service, for the TypeORM CLI (`npm run migration:generate`, `migration:check`), which
 * compares them with the schema. Listed explicitly rather than globbed so that the CLI loads exactly this set,
 * compiled or not. At the root beside app.module.ts, the other place that knows every feature: `database/` knows
 * none.
 */
const ENTITIES: Array<new () => unknown> = [
  ApiKeyEntity,
  ApiKeyUsageDailyEntity,
  ConsumedChallengeEntity,
  RevokedTokenEntity,
  SessionCutoffEntity,
  EventEntity,
  CacheInvalidationEntity,
  CacheLeaseEntity,
  PlanEntity,
  SubscriptionEntity,
  SubscriptionEventEntity,
  SubscriptionReminderEntity,
  SubscriptionTrialEntity,
  PaymentEntity,
  IdempotencyKeyEntity,
  WebhookEndpointEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
  KeeperChargeEntity,
  KeeperNonceEntity,
  MandateEntity,
  ChargedLogCursorEntity,
];

/** For the TypeORM CLI: reads DATABASE_URL. */
export default new DataSource({
  ...dataSourceOptions({ url: process.env.DATABASE_URL ?? 'postgres://localhost/tollgate' }),
  entities: ENTITIES,
});
