import fc from 'fast-check';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateWebhookSecret, isWebhookSecret, secretPrefix, signWebhook } from './webhook-signer.js';

const body = JSON.stringify({
  id: 'evt_01J9Z3',
  type: 'subscription.created',
  timestamp: '2025-01-01T00:00:00.000Z',
  data: { subscriptionId: 'sub_1', wallet: '0xabc', note: 'ünïcødé ✓' },
});

function headers(id: string, timestamp: number, signature: string): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

const now = (): number => Math.floor(Date.now() / 1000);

describe('generateWebhookSecret', () => {
  it('is whsec_ followed by base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    expect(isWebhookSecret(secret)).toBe(true);
  });
});

describe('isWebhookSecret', () => {
  it.each([
    ['whsec_' + Buffer.alloc(24, 1).toString('base64'), true],
    ['whsec_' + Buffer.alloc(64, 1).toString('base64'), true],
    ['whsec_' + Buffer.alloc(23, 1).toString('base64'), false],
    ['whsec_' + Buffer.alloc(65, 1).toString('base64'), false],
    [Buffer.alloc(32, 1).toString('base64'), false],
    ['whsec_' + Buffer.alloc(32, 1).toString('base64url'), false],
    ['whsec_' + Buffer.alloc(32, 1).toString('base64') + '!', false],
    ['whsec_', false],
    ['', false],
    [42, false],
    [undefined, false],
  ])('%j → %s', (value, expected) => {
    expect(isWebhookSecret(value)).toBe(expected);
  });
});

describe('secretPrefix', () => {
  it('shows the first 10 characters only', () => {
    expect(secretPrefix('whsec_AbCdEfGhIj')).toBe('whsec_AbCd');
  });
});

describe('signWebhook', () => {
  it('produces a signature the standardwebhooks reference implementation accepts', () => {
    const secret = generateWebhookSecret();
    const timestamp = now();
    const signature = signWebhook({ id: 'evt_01J9Z3', timestamp, body, secrets: [secret] });
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers('evt_01J9Z3', timestamp, signature))).toEqual(
      JSON.parse(body),
    );
    expect(signature).toBe(new Webhook(secret).sign('evt_01J9Z3', new Date(timestamp * 1000), body));
  });

  it('signs with every secret during a rotation, and each secret alone verifies', () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const timestamp = now();
    const signature = signWebhook({ id: 'evt_2', timestamp, body, secrets: [newSecret, oldSecret] });
    const entries = signature.split(' ');
    expect(entries).toHaveLength(2);
    expect(entries.every((entry) => entry.startsWith('v1,'))).toBe(true);
    for (const secret of [oldSecret, newSecret]) {
      expect(() => new Webhook(secret).verify(body, headers('evt_2', timestamp, signature))).not.toThrow();
    }
    expect(() =>
      new Webhook(generateWebhookSecret()).verify(body, headers('evt_2', timestamp, signature)),
    ).toThrow(WebhookVerificationError);
  });

  it('binds the id, the timestamp and the body', () => {
    const secret = generateWebhookSecret();
    const timestamp = now();
    const signature = signWebhook({ id: 'evt_3', timestamp, body, secrets: [secret] });
    const verifier = new Webhook(secret);
    expect(() => verifier.verify(body, headers('evt_4', timestamp, signature))).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifier.verify(body, headers('evt_3', timestamp - 1, signature))).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifier.verify(body + ' ', headers('evt_3', timestamp, signature))).toThrow(
      WebhookVerificationError,
    );
  });

  it('verifies for arbitrary ids and bodies', () => {
    const secret = generateWebhookSecret();
    const verifier = new Webhook(secret);
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), fc.string({ unit: 'grapheme' }), (id, text) => {
        const payload = JSON.stringify({ text });
        const timestamp = now();
        const signature = signWebhook({ id, timestamp, body: payload, secrets: [secret] });
        expect(verifier.verify(payload, headers(id, timestamp, signature))).toEqual({ text });
      }),
      { numRuns: 50 },
    );
  });

  it('refuses to sign without a usable secret or with a non-integer timestamp', () => {
    const secret = generateWebhookSecret();
    expect(() => signWebhook({ id: 'e', timestamp: now(), body, secrets: [] })).toThrow();
    expect(() => signWebhook({ id: 'e', timestamp: now(), body, secrets: ['whsec_nope'] })).toThrow();
    expect(() => signWebhook({ id: 'e', timestamp: 1.5, body, secrets: [secret] })).toThrow();
    expect(() => signWebhook({ id: 'e', timestamp: 1_700_000_000.25, body, secrets: [secret] })).toThrow();
  });
});
