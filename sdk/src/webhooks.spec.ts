import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError as ReferenceError } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const OTHER = `whsec_${randomBytes(32).toString('base64')}`;
const EVENT = {
  id: '0b8e3f52-6c1d-4f7a-9e2b-7d4c1a5f3e60',
  type: 'webhook.test',
  timestamp: '2026-11-22T01:30:00.000Z',
  data: { address: '0x52908400098527886E0F7030069857D2E4169EE7', message: 'hello ✓' },
};
const BODY = JSON.stringify(EVENT);
const NOW = new Date('2026-11-22T01:30:10.000Z');

/** Headers as the service sends them, signed by the reference implementation. */
function signed(secret: string, body = BODY, at = NOW, id = EVENT.id): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

/** What the reference implementation says of a delivery: the event, or the refusal. */
function reference(secret: string, headers: Record<string, string>, body: string): 'ok' | 'refused' {
  try {
    new Webhook(secret).verify(body, headers);
    return 'ok';
  } catch (error) {
    if (error instanceof ReferenceError) return 'refused';
    throw error;
  }
}

async function ours(
  secret: string,
  headers: Record<string, string>,
  body: string,
): Promise<'ok' | 'refused'> {
  try {
    await verifyWebhook(secret, headers, body);
    return 'ok';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return 'refused';
    throw error;
  }
}

describe('verifyWebhook', () => {
  it('returns the typed event of a delivery the standardwebhooks package signed', async () => {
    const event = await verifyWebhook(SECRET, signed(SECRET), BODY, { now: NOW });
    expect(event).toEqual(EVENT);
    if (event.type === 'webhook.test') expect(event.data.message).toBe('hello ✓');
  });

  it('reads Fetch Headers, Node header objects (any case) and raw bytes', async () => {
    const headers = signed(SECRET);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    const bytes = new TextEncoder().encode(BODY);
    await expect(verifyWebhook(SECRET, new Headers(headers), bytes, { now: NOW })).resolves.toEqual(EVENT);
    await expect(verifyWebhook(SECRET, upper, BODY, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('accepts any one of several space-separated signatures (a rotation overlap)', async () => {
    const headers = signed(SECRET);
    const both = `${signed(OTHER)['webhook-signature']} ${headers['webhook-signature']}`;
    const event = await verifyWebhook(SECRET, { ...headers, 'webhook-signature': both }, BODY, { now: NOW });
    expect(event.id).toBe(EVENT.id);
  });

  it.each([
    ['a changed body', (h: Record<string, string>) => [h, BODY.replace('hello', 'hellO')] as const],
    ['another id', (h: Record<string, string>) => [{ ...h, 'webhook-id': 'msg_other' }, BODY] as const],
    [
      'another timestamp',
      (h: Record<string, string>) => [{ ...h, 'webhook-timestamp': '1795311011' }, BODY] as const,
    ],
    [
      'a v2 prefix',
      (h: Record<string, string>) =>
        [{ ...h, 'webhook-signature': h['webhook-signature']!.replace('v1,', 'v2,') }, BODY] as const,
    ],
    [
      'a truncated signature',
      (h: Record<string, string>) =>
        [{ ...h, 'webhook-signature': h['webhook-signature']!.slice(0, -4) }, BODY] as const,
    ],
  ])('refuses %s with invalid_signature', async (_name, tamper) => {
    const [headers, body] = tamper(signed(SECRET));
    await expect(verifyWebhook(SECRET, headers, body, { now: NOW })).rejects.toMatchObject({
      code: 'invalid_signature',
    });
  });

  it('refuses a signature made with another secret', async () => {
    await expect(verifyWebhook(SECRET, signed(OTHER), BODY, { now: NOW })).rejects.toMatchObject({
      code: 'invalid_signature',
    });
  });

  it('refuses timestamps outside the tolerance, both ways, and honours a wider one', async () => {
    const old = signed(SECRET, BODY, new Date(NOW.getTime() - 301_000));
    const future = signed(SECRET, BODY, new Date(NOW.getTime() + 301_000));
    await expect(verifyWebhook(SECRET, old, BODY, { now: NOW })).rejects.toMatchObject({
      code: 'timestamp_too_old',
    });
    await expect(verifyWebhook(SECRET, future, BODY, { now: NOW })).rejects.toMatchObject({
      code: 'timestamp_too_new',
    });
    await expect(verifyWebhook(SECRET, old, BODY, { now: NOW, toleranceSeconds: 600 })).resolves.toEqual(
      EVENT,
    );
  });

  it('refuses missing headers, a malformed timestamp and a secret that is not base64', async () => {
    const headers = signed(SECRET);
    const { 'webhook-id': _id, ...withoutId } = headers;
    await expect(verifyWebhook(SECRET, withoutId, BODY, { now: NOW })).rejects.toMatchObject({
      code: 'missing_headers',
    });
    await expect(
      verifyWebhook(SECRET, { ...headers, 'webhook-timestamp': '12e9' }, BODY, { now: NOW }),
    ).rejects.toMatchObject({ code: 'invalid_timestamp' });
    await expect(verifyWebhook('whsec_%%%', headers, BODY, { now: NOW })).rejects.toMatchObject({
      code: 'invalid_secret',
    });
  });

  it('agrees with the standardwebhooks package on valid and tampered deliveries', async () => {
    // Against the real clock: the reference package has no way to pass a time.
    const now = new Date();
    const cases: Array<[Record<string, string>, string]> = [];
    for (const body of [
      BODY,
      JSON.stringify({ ...EVENT, type: 'api_key.created' }),
      JSON.stringify({ ...EVENT, data: { note: 'é\u2028' } }),
    ]) {
      const headers = signed(SECRET, body, now);
      const signature = headers['webhook-signature']!;
      cases.push(
        [headers, body],
        [headers, `${body} `],
        [{ ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${signature}` }, body],
        [{ ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` }, body],
        [{ ...headers, 'webhook-id': `${headers['webhook-id']}x` }, body],
        [signed(OTHER, body, now), body],
        [signed(SECRET, body, new Date(now.getTime() - 10 * 60_000)), body],
        [signed(SECRET, body, new Date(now.getTime() + 10 * 60_000)), body],
      );
    }
    for (const [headers, body] of cases) {
      expect(await ours(SECRET, headers, body)).toBe(reference(SECRET, headers, body));
    }
    expect(cases.filter(([headers, body]) => reference(SECRET, headers, body) === 'ok')).toHaveLength(6);
  });
});
