import { AuthTables1795314666113 } from './1795314666113-AuthTables.js';
import { EventsOutbox1795315000000 } from './1795315000000-EventsOutbox.js';
import { ApiKeys1795315100000 } from './1795315100000-ApiKeys.js';
import { Subscriptions1795315200000 } from './1795315200000-Subscriptions.js';
import { Webhooks1795315300000 } from './1795315300000-Webhooks.js';
import { CacheInvalidations1795315400000 } from './1795315400000-CacheInvalidations.js';
import { ConsumedChallenges1795454763649 } from './1795454763649-ConsumedChallenges.js';
import { Payments1795455078307 } from './1795455078307-Payments.js';
import { CacheInvalidationTriggers1795456118456 } from './1795456118456-CacheInvalidationTriggers.js';
import { CredentialCreatorsAndCutoffs1795513600579 } from './1795513600579-CredentialCreatorsAndCutoffs.js';
import { ApiKeyExpiryUsageAndSessionGenerations1795593673564 } from './1795593673564-ApiKeyExpiryUsageAndSessionGenerations.js';
import { EventsListingAndReminders1795593683064 } from './1795593683064-EventsListingAndReminders.js';
import { WebhookRetryIndex1795600000000 } from './1795600000000-WebhookRetryIndex.js';
import { Plans1795798423483 } from './1795798423483-Plans.js';
import { SubscriptionPlans1795804010898 } from './1795804010898-SubscriptionPlans.js';
import { IdempotencyKeyOwner1795810000000 } from './1795810000000-IdempotencyKeyOwner.js';
import { PlanCacheInvalidations1795813492766 } from './1795813492766-PlanCacheInvalidations.js';
import { KeeperCharges1795814290409 } from './1795814290409-KeeperCharges.js';
import { SubscriptionTrials1795814548321 } from './1795814548321-SubscriptionTrials.js';
import { AutoRenew1795816978514 } from './1795816978514-AutoRenew.js';
import { MandateCacheInvalidations1795820000000 } from './1795820000000-MandateCacheInvalidations.js';
import { SubscriptionPlanChanges1795900000000 } from './1795900000000-SubscriptionPlanChanges.js';
import { ChargedLogCursors1795910000000 } from './1795910000000-ChargedLogCursors.js';
import { CacheLeases1795920000000 } from './1795920000000-CacheLeases.js';

/**
 * Committed migrations, oldest first. `npm run migration:generate -- src/database/migrations/<Name>` writes one
 * from the entities; add it here.
 */
export const MIGRATIONS: Array<new () => unknown> = [
  AuthTables1795314666113,
  EventsOutbox1795315000000,
  ApiKeys1795315100000,
  Subscriptions1795315200000,
  Webhooks1795315300000,
  CacheInvalidations1795315400000,
  ConsumedChallenges1795454763649,
  Payments1795455078307,
  CacheInvalidationTriggers1795456118456,
  CredentialCreatorsAndCutoffs1795513600579,
  ApiKeyExpiryUsageAndSessionGenerations1795593673564,
  EventsListingAndReminders1795593683064,
  WebhookRetryIndex1795600000000,
  Plans1795798423483,
  SubscriptionPlans1795804010898,
  IdempotencyKeyOwner1795810000000,
  PlanCacheInvalidations1795813492766,
  KeeperCharges1795814290409,
  SubscriptionTrials1795814548321,
  AutoRenew1795816978514,
  MandateCacheInvalidations1795820000000,
  SubscriptionPlanChanges1795900000000,
  ChargedLogCursors1795910000000,
  CacheLeases1795920000000,
];
