import type { TollgateClient } from './client.js';
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
export declare function entitlement(client: TollgateClient, address: string, feature: string): Promise<Entitlement>;
/** Every feature `address` may use now, its plan, and until when. */
export declare function entitlements(client: TollgateClient, address?: string): Promise<EntitlementList>;
