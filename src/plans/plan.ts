/** A plan id: lowercase letters, digits and hyphens, 1–32, starting with a letter or digit (ck_plans_id). */
export const PLAN_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** A feature (entitlement key): 1–64 of lowercase letters, digits, `.`, `_`, `-` (ck_plans_features). */
export const PLAN_FEATURE = /^[a-z0-9._-]{1,64}$/;
/** The plan the settings define: always offered, never stored, never edited through the API. */
export const DEFAULT_PLAN_ID = 'default';
/** The largest price a plan may carry: a uint256, as the ERC-20 transfer that pays it. */
export const MAX_PLAN_PRICE = 2n ** 256n - 1n;
/** The largest period or trial, in seconds (the columns are PostgreSQL integers). */
export const MAX_PLAN_SECONDS = 2_147_483_647;

/** A plan as the rest of the service sees it: money and time as integers. */
export interface Plan {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly periodSeconds: number;
  /** In the payment token's smallest unit. */
  readonly pricePerPeriod: bigint;
  readonly features: readonly string[];
  readonly trialSeconds: number | null;
  readonly archivedAt: Date | null;
  /** Null for `default`, which is not stored. */
  readonly createdAt: Date | null;
  readonly updatedAt: Date | null;
}

/** The terms of `default`, read from the settings that defined the service's one plan before plans existed. */
export interface DefaultPlanSettings {
  readonly subscriptionPeriodSeconds: number;
  readonly paymentGateway: string | undefined;
  readonly paymentPricePerPeriod: bigint | undefined;
}

/**
 * `default`: SUBSCRIPTION_PERIOD_SECONDS at PAYMENT_PRICE_PER_PERIOD under `erc20`, and at 0 under `free` and
 * `operator` (nothing is paid through the service), with no features and no trial. Derived on every read rather than
 * stored, so a changed setting is the plan at the next start and no stored copy can drift from it.
 */
export function defaultPlan(settings: DefaultPlanSettings): Plan {
  return {
    id: DEFAULT_PLAN_ID,
    name: 'Default',
    description: '',
    periodSeconds: settings.subscriptionPeriodSeconds,
    pricePerPeriod: settings.paymentGateway === 'erc20' ? (settings.paymentPricePerPeriod ?? 0n) : 0n,
    features: [],
    trialSeconds: null,
    archivedAt: null,
    createdAt: null,
    updatedAt: null,
  };
}
