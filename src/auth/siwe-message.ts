import { SiweMessage } from 'siwe';
import { parseSiweMessage } from 'viem/siwe';

/** Clocks of wallets, the database and instances differ a little; CONTRACT.md allows 30 s. */
export const CLOCK_SKEW_MS = 30_000;

export interface SiweFields {
  domain: string;
  address: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

export const SIWE_STATEMENT = 'Sign in to Tollgate.';

/** Builds the EIP-4361 message the server stores with the challenge and the wallet signs. */
export function buildSiweMessage(fields: SiweFields): string {
  return new SiweMessage({
    domain: fields.domain,
    address: fields.address,
    statement: SIWE_STATEMENT,
    uri: fields.uri,
    version: '1',
    chainId: fields.chainId,
    nonce: fields.nonce,
    issuedAt: fields.issuedAt.toISOString(),
    expirationTime: fields.expiresAt.toISOString(),
  }).prepareMessage();
}

/**
 * Checks the message's own time bounds, failing closed: a message without a parseable issued-at and
 * expiration-time is not within bounds.
 */
export function isWithinTimeBounds(message: string, now: Date): boolean {
  const parsed = parseSiweMessage(message);
  const issuedAt = parsed.issuedAt?.getTime();
  const expiresAt = parsed.expirationTime?.getTime();
  const notBefore = parsed.notBefore?.getTime();
  if (
    issuedAt === undefined ||
    expiresAt === undefined ||
    Number.isNaN(issuedAt) ||
    Number.isNaN(expiresAt)
  ) {
    return false;
  }
  if (notBefore !== undefined && (Number.isNaN(notBefore) || notBefore > now.getTime() + CLOCK_SKEW_MS))
    return false;
  return issuedAt <= now.getTime() + CLOCK_SKEW_MS && expiresAt > now.getTime() - CLOCK_SKEW_MS;
}
