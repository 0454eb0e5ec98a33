import type { SqlExecutor } from '../../../database/database.service.js';
import type { Sql } from '../../../database/sql.js';
import type { WebhookDeliveryEntity, WebhookDeliveryStatus } from '../../webhook-delivery.entity.js';
import type { WebhookEndpointEntity } from '../../webhook-endpoint.entity.js';
import type { DeliveryOutcome } from '../guarded-http.client.js';

/** A delivery that this process holds and may attempt, with what the attempt needs. */
export type ClaimedDelivery = Pick<
  WebhookDeliveryEntity,
  'id' | 'endpointId' | 'eventId' | 'eventType' | 'payload' | 'attemptCount' | 'createdAt'
> &
  Pick<WebhookEndpointEntity, 'url'> & {
    endpointEnabled: boolean;
    /** The current secret, then the previous one while its rotation overlap lasts. */
    secrets: string[];
  };

/** An event to fan out to the configurations that subscribe to it. */
export interface FanOutInput {
  eventId: string;
  eventType: string;
  /** Lowercase address the event is about. */
  address: string;
  body: string;
  /** Lowercase operator addresses whose configurations receive this event too (subscription events only). */
  operators: readonly string[];
}

/** One request sent to a receiver: what the delivery log keeps of it. */
export interface Attempt {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  outcome: DeliveryOutcome;
}

/** After a failed attempt: retry after a delay, give up, or leave status and schedule alone (manual re-sends). */
export type AfterFailure = { retryInMs: number } | 'fail' | 'keep';

/** An attempt that is not a scheduled success, and what follows from it. */
export interface SettledAttempt extends Attempt {
  /** Whether the attempt counts towards the configuration's health (`failing_since`, 410, five days). */
  trackHealth: boolean;
  afterFailure: AfterFailure;
}

/**
 * The webhook deliveries' queue, the one edge between delivering and how deliveries wait: the worker, the test
 * sends and the manual re-sends use nothing else. Today the pending rows of `webhook_deliveries` are the queue
 * (`PostgresDeliveryQueue`); a queue library or a broker would be another implementation of this class, in this
 * folder. Delivery is at least once: a claim is a lease, and a delivery whose holder died is claimed again.
 */
export abstract class DeliveryQueue {
  /**
   * Enqueues an event for its configurations, in the producer's transaction: the statement the outbox runs with the
   * statement that records the event, so a rolled-back change enqueues nothing. Its text is fixed (prepared).
   */
  abstract fanOut(event: FanOutInput): Sql;

  /** Enqueues one event for the given configurations, already claimed by the caller, who attempts them at once. */
  abstract enqueueClaimed(
    tx: SqlExecutor,
    event: { id: string; type: string; body: string },
    endpointIds: readonly string[],
  ): Promise<ClaimedDelivery[]>;

  /**
   * Starts attempting due deliveries with `attempt`, many at a time, due retries before first attempts (each group
   * in the order it fell due); `attempt` ends each delivery with `complete`, `settle` or `abandon`.
   */
  abstract consume(attempt: (delivery: ClaimedDelivery) => Promise<void>): void;

  /** Stops claiming and resolves once every attempt under way has ended. */
  abstract stop(): Promise<void>;

  /**
   * Claims one of the owner's deliveries whatever its state, for a manual re-send, while it has had fewer than
   * `maxAttempts` attempts (`exhausted` after that).
   */
  abstract claimOwned(
    ownerAddress: string,
    deliveryId: string,
    maxAttempts: number,
  ): Promise<ClaimedDelivery | 'busy' | 'exhausted' | 'not_found'>;

  /** A scheduled attempt succeeded: logs it and ends the delivery. Resolves once written. */
  abstract complete(attempt: Attempt): Promise<void>;

  /**
   * Any other attempt: logs it and applies what follows (the configuration's health; a retry, the end, or nothing).
   * Returns the delivery's status after it.
   */
  abstract settle(attempt: SettledAttempt): Promise<WebhookDeliveryStatus>;

  /** Ends a claimed delivery without an attempt (its configuration was disabled meanwhile). */
  abstract abandon(deliveryId: string, reason: string): Promise<void>;

  /** Deliveries waiting for an attempt, and the age in seconds of the oldest. */
  abstract depth(): Promise<{ depth: number; oldestSeconds: number }>;
}
