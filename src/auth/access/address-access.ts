import { storageAddress, type Address } from '../../common/address/wallet-address.js';
import { AuthErrors } from '../auth.errors.js';
import type { Principal } from '../principal.js';

/**
 * In one place: operators (and the keys they created) may act on any address; everyone
 * else only on their own. Returns the address to act on: the requested one, or the caller's own by default.
 */
export function resolveTargetAddress(principal: Principal, requested: Address | undefined): Address {
  const target = requested ?? principal.address;
  if (!principal.operator && storageAddress(target) !== storageAddress(principal.address)) {
    throw AuthErrors.addressForbidden();
  }
  return target;
}
