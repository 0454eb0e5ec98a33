import { SiweMessage } from 'siwe';

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

/** Builds the EIP-4361 message of a login challenge, which the wallet signs. */
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
