import { Webhook } from 'standardwebhooks';
import { webhookBody, webhookHeaders } from './webhook-message.js';
import { generateWebhookSecret } from './webhook-signer.js';

const event = {
  id: '6f1c1a52-6b9e-4a53-9f43-0d6f6c3f2d10',
  type: 'subscription.renewed',
  occurredAt: new Date('2026-11-22T01:30:00.000Z'),
  data: { address: '0x52908400098527886E0F7030069857D2E4169EE7', note: 'ünïcødé ✓' },
};

describe('webhookBody', () => {
  it('is the Standard Webhooks body, with the event time in ISO 8601', () => {
    const body = webhookBody(event);
    expect(JSON.parse(body)).toEqual({
      id: event.id,
      type: 'subscription.renewed',
      timestamp: '2026-11-22T01:30:00.000Z',
      data: event.data,
    });
    expect(Object.keys(JSON.parse(body) as object)).toEqual(['id', 'type', 'timestamp', 'data']);
  });
});

describe('webhookHeaders', () => {
  it('carries the event id, the attempt time in unix seconds and a signature the reference library accepts', () => {
    const secret = generateWebhookSecret();
    const body = webhookBody(event);
    const attemptedAt = new Date();
    const headers = webhookHeaders({ eventId: event.id, body, secrets: [secret], attemptedAt });
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(attemptedAt.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('signs with every secret of a rotation overlap, each one verifying on its own', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = webhookBody(event);
    const headers = webhookHeaders({
      eventId: event.id,
      body,
      secrets: [current, previous],
      attemptedAt: new Date(),
    });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });
});
