import type { TollgateClient } from './client.js';
import { TollgateError, unwrap } from './errors.js';
import type { components } from './schema.js';

export type Entitlement = components['schemas']['EntitlementDto'];
export type EntitlementList = components['schemas']['EntitlementListDto'];

/**
 * Whether `address` may use `feature` now, in one call: `GET /entitlements` answers one of two shapes (with and
 * without `feature`), and this picks the one-feature answer for the type. A refusal throws a TollgateError
 * (`address_forbidden`, `validation_failed`, …), as `unwrap` does.
 *
 * `if (!(await entitlement(tollgate, wallet, 'export.csv')).entitled) return forbidden();`
 */
export async function entitlement(
  client: TollgateClient,
  address: string,
  feature: string,
): Promise<Entitlement> {
  const answer = await unwrap(client.GET('/entitlements', { params: { query: { address, feature } } }));
  if (!('entitled' in answer)) throw new TollgateError(200, undefined);
  return answer;
}

/** Every feature `address` may use now, its plan, and until when. */
export async function entitlements(client: TollgateClient, address?: string): Promise<EntitlementList> {
  const query = address === undefined ? {} : { address };
  const answer = await unwrap(client.GET('/entitlements', { params: { query } }));
  if (!('features' in answer)) throw new TollgateError(200, undefined);
  return answer;
}
