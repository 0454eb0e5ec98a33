import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Address } from '../../common/address/wallet-address.js';
import { Database } from '../../database/database.service.js';
import { EventOutbox } from '../../events/event-outbox.service.js';
import { Metrics } from '../../metrics/metrics.service.js';
import { tracing } from '../../tracing/tracing.js';
import type { WebhookDeliveryStatus } from '../webhook-delivery.entity.js';
import { WebhookErrors } from '../webhooks.errors.js';
import { GuardedHttpClient, type DeliveryOutcome } from './guarded-http.client.js';
import { DeliveryQueue, type AfterFailure, type ClaimedDelivery } from './queue/delivery-queue.js';
import { retryDelayMs } from './retry-schedule.js';
import { webhookBody, webhookHeaders } from './webhook-message.js';

/**
 * Attempts one delivery may have, scheduled and manual together: each is a row of the delivery log, so manual
 * re-sends stop there rather than let one wallet grow the log without end. Well above the scheduled retries.
 */
export const MAX_ATTEMPTS_PER_DELIVERY = 50;

/** What one attempt came to, as the test and retry routes report it. */
export interface DeliveryResult {
  deliveryId: string;
  webhookId: string;
  url: string;
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The delivery's status after the attempt. */
  status: WebhookDeliveryStatus;
}

/**
 * - `scheduled`: the worker's attempt on the contract's retry schedule.
 * - `manual`: a re-send asked for by the owner; it leaves the schedule alone and only a success changes the status.
 * - `test`: the first attempt of a test event; test events are never retried.
 */
type AttemptMode = 'scheduled' | 'manual' | 'test';

export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * The one delivery path: every request to a receiver (scheduled, test or manual) is signed, sent through the
 * guarded client and recorded here.
 */
@Injectable()
export class WebhookDeliveryService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');

  constructor(
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly queue: DeliveryQueue,
    private readonly client: GuardedHttpClient,
    private readonly metrics: Metrics,
  ) {}

  /** The queue read of the scrape under way: its gauges are collected together and share one query. */
  private scrapedDepth?: Promise<{ depth: number; oldestSeconds: number }>;

  onModuleInit(): void {
    const depth = () =>
      (this.scrapedDepth ??= this.queue.depth().finally(() => (this.scrapedDepth = undefined)));
    this.metrics.gauge(
      'tollgate_webhook_queue_depth',
      'Webhook deliveries waiting for an attempt.',
      [],
      async (set) => set((await depth()).depth),
    );
    this.metrics.gauge(
      'tollgate_webhook_queue_oldest_seconds',
      'Age in seconds of the oldest webhook delivery waiting for an attempt (0 when none waits).',
      [],
      async (set) => set((await depth()).oldestSeconds),
    );
    // Deprecated: two units in one metric. Kept for one release beside the two above (docs/operations.md).
    this.metrics.gauge(
      'tollgate_webhook_queue',
      'Deprecated, use tollgate_webhook_queue_depth and tollgate_webhook_queue_oldest_seconds.',
      ['measure'],
      async (set) => {
        const { depth: waiting, oldestSeconds } = await depth();
        set(waiting, { measure: 'depth' });
        set(oldestSeconds, { measure: 'oldest_seconds' });
      },
    );
  }

  /**
   * The worker's attempt of a delivery the queue handed it; resolves once the attempt is recorded. An attempt that
   * could not be recorded (the database unreachable at that moment) keeps its claim until the lease runs out, and is
   * then made again: logged here as what it was, the receiver's answer and what follows, since a 2xx that was not
   * recorded means the receiver will get the same `webhook-id` twice.
   */
  async deliverClaimed(delivery: ClaimedDelivery): Promise<void> {
    if (!delivery.endpointEnabled) {
      await this.queue.abandon(delivery.id, 'webhook_disabled: the configuration was disabled');
      return;
    }
    await this.attempt(delivery, 'scheduled', (outcome, error) =>
      this.logger.warn(notRecordedLine(delivery, outcome, error)),
    );
  }

  /**
   * Records a `webhook.test` event and sends it to each given configuration at once, whatever events they
   * subscribe to, and waits for the answers (each attempt is bounded by the client's 10 s budget).
   */
  async sendTest(address: Address, endpointIds: readonly string[]): Promise<DeliveryResult[]> {
    if (endpointIds.length === 0) return [];
    const deliveries = await this.db.transaction(async (tx) => {
      await this.outbox.admit(tx, address);
      const event = await this.outbox.record(tx, {
        type: TEST_EVENT_TYPE,
        address,
        data: { address, message: 'Test event from Tollgate, sent by POST /webhooks/test.' },
        // This host's clock, as the attempt's webhook-timestamp: a test orders against no other change.
        occurredAt: new Date(),
      });
      return this.queue.enqueueClaimed(tx, { ...event, body: webhookBody(event) }, endpointIds);
    });
    const order = new Map(endpointIds.map((id, index) => [id, index]));
    deliveries.sort((a, b) => order.get(a.endpointId)! - order.get(b.endpointId)!);
    return Promise.all(deliveries.map((delivery) => this.attempt(delivery, 'test')));
  }

  /** Re-sends one of the owner's deliveries now, whatever its status, and waits for the answer. */
  async retry(ownerAddress: string, deliveryId: string): Promise<DeliveryResult> {
    const delivery = await this.queue.claimOwned(ownerAddress, deliveryId, MAX_ATTEMPTS_PER_DELIVERY);
    if (delivery === 'not_found') throw WebhookErrors.deliveryNotFound();
    if (delivery === 'busy') throw WebhookErrors.deliveryInProgress();
    if (delivery === 'exhausted') throw WebhookErrors.deliveryAttemptLimitReached(MAX_ATTEMPTS_PER_DELIVERY);
    return this.attempt(delivery, 'manual');
  }

  // After the HTTP server has stopped (unlike onModuleDestroy), so a test or re-send still in flight can finish.
  onApplicationShutdown(): void {
    this.client.close();
  }

  /**
   * Sends one attempt and records it. When recording fails, `onNotRecorded` (given) is told and the attempt
   * resolves with the status it had; without it the error is thrown.
   */
  private async attempt(
    delivery: ClaimedDelivery,
    mode: AttemptMode,
    onNotRecorded?: (outcome: DeliveryOutcome, error: unknown) => void,
  ): Promise<DeliveryResult> {
    const attemptedAt = new Date();
    const headers = webhookHeaders({
      eventId: delivery.eventId,
      body: delivery.payload,
      secrets: delivery.secrets,
      attemptedAt,
    });
    const outcome = await this.send(delivery, mode, headers);
    let status: WebhookDeliveryStatus;
    try {
      status = await this.record(delivery, mode, attemptedAt, outcome);
    } catch (error) {
      if (!onNotRecorded) throw error;
      onNotRecorded(outcome, error);
      this.metrics.webhookAttempts.inc({
        outcome: outcome.success ? 'delivered_not_recorded' : 'not_recorded',
        mode,
      });
      return { ...result(delivery, outcome), status: 'pending' };
    }
    this.metrics.webhookAttempts.inc({ outcome: attemptOutcome(outcome.success, status), mode });
    if (outcome.success && mode === 'scheduled') {
      this.metrics.webhookLag.observe((Date.now() - delivery.createdAt.getTime()) / 1000);
    }
    return { ...result(delivery, outcome), status };
  }

  private async record(
    delivery: ClaimedDelivery,
    mode: AttemptMode,
    attemptedAt: Date,
    outcome: DeliveryOutcome,
  ): Promise<WebhookDeliveryStatus> {
    const isTest = delivery.eventType === TEST_EVENT_TYPE;
    if (mode === 'scheduled' && !isTest && outcome.success) {
      await this.queue.complete({ delivery, attemptedAt, outcome });
      return 'succeeded';
    }
    return this.queue.settle({
      delivery,
      attemptedAt,
      outcome,
      // A test is the owner probing the receiver, not traffic: it neither disables nor marks anything failing.
      trackHealth: !isTest,
      afterFailure: afterFailure(mode, isTest, delivery, outcome),
    });
  }

  /**
   * One request to the receiver, in a span of its own when tracing is on; the receiver gets that span's
   * `traceparent`, so its own spans join the trace.
   */
  private send(
    delivery: ClaimedDelivery,
    mode: AttemptMode,
    headers: Record<string, string>,
  ): Promise<DeliveryOutcome> {
    const traces = tracing();
    if (!traces.enabled) return this.client.post(delivery.url, delivery.payload, headers);
    const attributes = {
      'http.request.method': 'POST',
      'server.address': new URL(delivery.url).hostname,
      'tollgate.webhook.delivery_id': delivery.id,
      'tollgate.webhook.event_type': delivery.eventType,
      'tollgate.webhook.attempt': delivery.attemptCount + 1,
      'tollgate.webhook.mode': mode,
    };
    return traces.inClientSpan('webhook delivery', attributes, async (span) => {
      const outcome = await this.client.post(delivery.url, delivery.payload, {
        ...headers,
        ...traces.propagationHeaders(),
      });
      if (outcome.statusCode !== null)
        span.setAttributes({ 'http.response.status_code': outcome.statusCode });
      if (!outcome.success) span.fail(outcome.error ?? 'failed');
      return outcome;
    });
  }
}

function result(delivery: ClaimedDelivery, outcome: DeliveryOutcome): Omit<DeliveryResult, 'status'> {
  return {
    deliveryId: delivery.id,
    webhookId: delivery.endpointId,
    url: delivery.url,
    success: outcome.success,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    error: outcome.error,
  };
}

/**
 * The log line of an attempt whose outcome could not be recorded: the delivery stays claimed until its lease runs
 * out, then it is attempted again, so a receiver that answered 2xx gets the same `webhook-id` again.
 */
export function notRecordedLine(delivery: ClaimedDelivery, outcome: DeliveryOutcome, error: unknown): string {
  const cause = (error as Error).message;
  const answer = outcome.statusCode === null ? (outcome.error ?? 'no answer') : `HTTP ${outcome.statusCode}`;
  return outcome.success
    ? `webhook delivery ${delivery.id} delivered (${answer}), not recorded: will be re-sent with the same ` +
        `webhook-id ${delivery.eventId} (${cause})`
    : `webhook delivery ${delivery.id} attempt failed (${answer}), not recorded: will be attempted again ` +
        `(${cause})`;
}

/** `retrying`: failed, another attempt is scheduled; `kept`: a failed re-send that left the status as it was. */
function attemptOutcome(success: boolean, status: WebhookDeliveryStatus): string {
  if (success) return 'succeeded';
  if (status === 'failed') return 'failed';
  return status === 'pending' ? 'retrying' : 'kept';
}

function afterFailure(
  mode: AttemptMode,
  isTest: boolean,
  delivery: ClaimedDelivery,
  outcome: DeliveryOutcome,
): AfterFailure {
  if (mode === 'manual') return 'keep';
  if (isTest) return 'fail';
  const delay = retryDelayMs(delivery.attemptCount + 1, outcome.retryAfterSeconds);
  return delay === null ? 'fail' : { retryInMs: delay };
}
