import { createHash } from 'node:crypto';
import { storageAddress } from '../../common/address/wallet-address.js';
import type { Principal } from '../../auth/principal.js';
import { SubscriptionErrors } from '../subscriptions.errors.js';

/** Keys are at most 255 characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** A change request that carries an `Idempotency-Key`. */
export interface IdempotentRequest {
  /** Whose key it is (see {@link idempotencyPrincipal}). */
  principal: string;
  key: string;
  /** See {@link requestFingerprint}. */
  fingerprint: string;
}

/** The header's value, or undefined when absent; an empty or over-long key is a 400. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header))
    throw SubscriptionErrors.invalidIdempotencyKey('Send one Idempotency-Key header');
  if (header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw SubscriptionErrors.invalidIdempotencyKey(
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters long`,
    );
  }
  return header;
}

/**
 * Keys are scoped to who sent them: a wallet session's keys are the wallet's, an API key's are that key's, so two
 * integrations of one wallet cannot collide.
 */
export function idempotencyPrincipal(principal: Principal): string {
  if (principal.via === 'api_key') {
    if (!principal.keyId) throw new Error('API-key principal without a key id');
    return `api_key:${principal.keyId}`;
  }
  return `wallet:${storageAddress(principal.address)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * SHA-256 (hex) of the operation and its normalised parameters, independent of key order and of absent fields.
 * Callers pass parameters with defaults applied and addresses normalised, so requests that mean the same thing
 * (`{}` and `{"immediate": false}`, one address in two spellings) count as the same request.
 */
export function requestFingerprint(operation: string, parameters: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson({ operation, parameters })).digest('hex');
}
