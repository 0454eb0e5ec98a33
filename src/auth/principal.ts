import type { Address } from '../common/address/wallet-address.js';
import type { Scope } from './scopes.js';

/**
 * Who is calling, whatever the credential: identity only. Every protected handler receives
 * one through `@CurrentPrincipal()`.
 */
export interface Principal {
  /** The wallet the credential acts for, in EIP-55 form: the JWT's subject, or the wallet that created the key. */
  readonly address: Address;
  readonly scopes: readonly Scope[];
  readonly via: 'jwt' | 'api_key';
  /** Operators may read and manage any address's subscription (OPERATOR_ADDRESSES). */
  readonly operator: boolean;
  /** The API key's id, when via = api_key. */
  readonly keyId?: string;
  /** The JWT's id and expiry, when via = jwt (logout revokes them). */
  readonly tokenId?: string;
  readonly tokenExpiresAt?: Date;
}
