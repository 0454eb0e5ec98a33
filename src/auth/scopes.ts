/** API key scopes. A JWT carries every scope. */
export const SCOPES = ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'] as const;
export type Scope = (typeof SCOPES)[number];

export const ALL_SCOPES: readonly Scope[] = SCOPES;

/** Which scopes pass, per kind of route. */
export const ROUTE_SCOPES = {
  readSubscriptions: ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'],
  // SUBSCRIPTIONS_MANAGE holds READ_ONLY, so it passes too (heldScopes).
  readEntitlements: ['READ_ONLY', 'FULL'],
  manageSubscriptions: ['SUBSCRIPTIONS_MANAGE', 'FULL'],
  full: ['FULL'],
} as const satisfies Record<string, readonly Scope[]>;

const IMPLIED: Record<Scope, readonly Scope[]> = {
  FULL: ['FULL', 'SUBSCRIPTIONS_MANAGE', 'READ_ONLY'],
  SUBSCRIPTIONS_MANAGE: ['SUBSCRIPTIONS_MANAGE', 'READ_ONLY'],
  READ_ONLY: ['READ_ONLY'],
};

/** Every scope a set of scopes amounts to: FULL covers all endpoints, SUBSCRIPTIONS_MANAGE covers reading too. */
export function heldScopes(scopes: readonly Scope[]): ReadonlySet<Scope> {
  return new Set(scopes.flatMap((scope) => IMPLIED[scope]));
}
