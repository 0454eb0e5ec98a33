import { signWebhook } from './webhook-signer.js';

/** What a webhook body is made of: an event as the outbox recorded it. */
export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/**
 * The Standard Webhooks body `{id, type, timestamp, data}`. Built once per event and stored, so every attempt
 * sends (and signs) exactly the same bytes.
 */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.occurredAt.toISOString(),
    data: event.data,
  });
}

export interface WebhookHeadersInput {
  /** The event id: the same on every attempt, so receivers can recognise a retry. */
  eventId: string;
  body: string;
  /** The current secret first, then any previous one still inside its rotation overlap. */
  secrets: readonly string[];
  attemptedAt: Date;
}

/** `webhook-id`, `webhook-timestamp` (unix seconds of this attempt) and `webhook-signature`. */
export function webhookHeaders({
  eventId,
  body,
  secrets,
  attemptedAt,
}: WebhookHeadersInput): Record<string, string> {
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook({ id: eventId, timestamp, body, secrets }),
  };
}
