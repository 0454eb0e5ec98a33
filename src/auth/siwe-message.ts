import { createSiweMessage } from 'viem/siwe';
import type { Address } from '../common/address/wallet-address.js';

export interface SiweFields {
  domain: string;
  address: Address;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

export const SIWE_STATEMENT = 'Sign in to Tollgate.';

/** Builds the EIP-4361 message of a login challenge, which the wallet signs. */
export function buildSiweMessage(fields: SiweFields): string {
  return createSiweMessage({
    domain: fields.domain,
    address: fields.address,
    statement: SIWE_STATEMENT,
    uri: fields.uri,
    version: '1',
    chainId: fields.chainId,
    nonce: fields.nonce,
    issuedAt: fields.issuedAt,
    expirationTime: fields.expiresAt,
  });
}
