import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
// Standard Webhooks accepts keys of 24 to 64 bytes; ours are 32, but verifying others costs nothing.
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const DISPLAY_PREFIX_LENGTH = 10;

export interface WebhookSignatureInput {
  /** The event id, sent as `webhook-id`. */
  id: string;
  /** Unix seconds of the attempt, sent as `webhook-timestamp`. */
  timestamp: number;
  /** The exact request body bytes as text. */
  body: string;
  /** Every secret currently valid for the endpoint; more than one while a rotation overlaps. */
  secrets: readonly string[];
}

/** The key bytes of a `whsec_` secret, or undefined if the text is not one. */
function secretKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  // Buffer.from ignores characters outside the alphabet, so only a lossless round trip proves validity.
  if (key.toString('base64') !== encoded) return undefined;
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) return undefined;
  return key;
}

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export function isWebhookSecret(value: unknown): value is string {
  return typeof value === 'string' && secretKey(value) !== undefined;
}

/** Enough of a secret to tell two apart in a listing, too little to be useful to anyone who sees it. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** The `webhook-signature` header value: one `v1,<base64 HMAC-SHA256>` entry per secret, space-separated. */
export function signWebhook({ id, timestamp, body, secrets }: WebhookSignatureInput): string {
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new Error('signWebhook needs the timestamp in whole unix seconds');
  }
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .map((secret) => {
      const key = secretKey(secret);
      if (!key) throw new Error('signWebhook was given a value that is not a webhook secret');
      return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
    })
    .join(' ');
}
