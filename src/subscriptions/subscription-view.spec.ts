import { subscriptionDtoOfRow, toSubscriptionDto } from './subscription-view.js';
import { AUTO_RENEW_OFF } from './subscription-auto-renew.js';
import type { SubscriptionRelations } from './subscription-plans.js';
import type { StoredSubscription } from './subscriptions.repository.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const start = new Date('2030-01-01T00:00:00.000Z');
const end = new Date('2030-01-31T00:00:00.000Z');

const DEFAULT: SubscriptionRelations = {
  plan: { id: 'default', name: 'Default', features: [] },
  pending: null,
  autoRenew: AUTO_RENEW_OFF,
};
const PLAN_FIELDS = {
  plan: { id: 'default', name: 'Default' },
  features: [],
  trialEnd: null,
  graceEndsAt: null,
  pendingPlan: null,
  autoRenew: AUTO_RENEW_OFF,
};

const stored = (overrides: Partial<StoredSubscription> = {}): StoredSubscription => ({
  address: ADDRESS.toLowerCase(),
  currentPeriodStart: start,
  currentPeriodEnd: end,
  cancelAtPeriodEnd: false,
  canceledAt: null,
  graceUntil: null,
  expiryRecordedFor: null,
  planId: 'default',
  trialEnd: null,
  pendingPlanId: null,
  pendingPlanAt: null,
  createdAt: start,
  updatedAt: start,
  ...overrides,
});

describe('toSubscriptionDto', () => {
  it('answers `none` with every timestamp null for an address that never subscribed', () => {
    expect(toSubscriptionDto(ADDRESS.toLowerCase(), null, start, DEFAULT)).toEqual({
      address: ADDRESS,
      status: 'none',
      active: false,
      currentPeriodStart: null,
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      createdAt: null,
      updatedAt: null,
      ...PLAN_FIELDS,
    });
  });

  it('returns the EIP-55 address and ISO timestamps with milliseconds', () => {
    expect(
      toSubscriptionDto(ADDRESS.toLowerCase(), stored(), new Date(start.getTime() + 1), DEFAULT),
    ).toEqual({
      address: ADDRESS,
      status: 'active',
      active: true,
      currentPeriodStart: '2030-01-01T00:00:00.000Z',
      currentPeriodEnd: '2030-01-31T00:00:00.000Z',
      cancelAtPeriodEnd: false,
      canceledAt: null,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-01T00:00:00.000Z',
      ...PLAN_FIELDS,
    });
  });

  it('computes the status at the given instant: the period end itself is no longer covered', () => {
    const canceled = stored({ cancelAtPeriodEnd: true, canceledAt: start });
    expect(toSubscriptionDto(ADDRESS, stored(), new Date(end.getTime() - 1), DEFAULT)).toMatchObject({
      status: 'active',
      active: true,
    });
    expect(toSubscriptionDto(ADDRESS, stored(), end, DEFAULT)).toMatchObject({
      status: 'expired',
      active: false,
    });
    expect(toSubscriptionDto(ADDRESS, canceled, end, DEFAULT)).toMatchObject({
      status: 'canceled',
      active: false,
      cancelAtPeriodEnd: true,
      canceledAt: '2030-01-01T00:00:00.000Z',
    });
  });
});

describe('subscriptionDtoOfRow', () => {
  it('shares one view of a row while its period runs, another once it is over, and matches toSubscriptionDto', () => {
    const row = stored({ cancelAtPeriodEnd: true, canceledAt: start });
    const during = subscriptionDtoOfRow(ADDRESS, row, new Date(end.getTime() - 1), DEFAULT);
    expect(during).toEqual(toSubscriptionDto(ADDRESS, row, new Date(end.getTime() - 1), DEFAULT));
    expect(during.status).toBe('active');
    expect(subscriptionDtoOfRow(ADDRESS, row, start, DEFAULT)).toBe(during);
    const after = subscriptionDtoOfRow(ADDRESS, row, end, DEFAULT);
    expect(after).toEqual(toSubscriptionDto(ADDRESS, row, end, DEFAULT));
    expect(after.status).toBe('canceled');
    expect(subscriptionDtoOfRow(ADDRESS, row, new Date(end.getTime() + 86_400_000), DEFAULT)).toBe(after);
    expect(Object.isFrozen(after)).toBe(true);
  });

  it('shares a third view during a trial: `trialing` to the trial end, `active` after it (paid during it)', () => {
    const trialEnd = new Date(start.getTime() + 86_400_000);
    const row = stored({ trialEnd });
    const trialing = subscriptionDtoOfRow(ADDRESS, row, start, DEFAULT);
    expect(trialing).toMatchObject({ status: 'trialing', active: true, trialEnd: trialEnd.toISOString() });
    expect(subscriptionDtoOfRow(ADDRESS, row, new Date(trialEnd.getTime() - 1), DEFAULT)).toBe(trialing);
    const paid = subscriptionDtoOfRow(ADDRESS, row, trialEnd, DEFAULT);
    expect(paid).toEqual(toSubscriptionDto(ADDRESS, row, trialEnd, DEFAULT));
    expect(paid).toMatchObject({ status: 'active', active: true });
    expect(subscriptionDtoOfRow(ADDRESS, row, end, DEFAULT).status).toBe('expired');
  });

  it('builds separate views for separate rows (a renewal loads a new row)', () => {
    const before = stored();
    const renewed = stored({ currentPeriodEnd: new Date(end.getTime() + 86_400_000) });
    const now = new Date(end.getTime() + 1000);
    expect(subscriptionDtoOfRow(ADDRESS, before, now, DEFAULT).status).toBe('expired');
    expect(subscriptionDtoOfRow(ADDRESS, renewed, now, DEFAULT).status).toBe('active');
  });
});

describe('the plans in the subscription object', () => {
  const pro: SubscriptionRelations = {
    plan: { id: 'pro', name: 'Pro', features: ['api.calls', 'export.csv'] },
    pending: { id: 'basic', name: 'Basic' },
    autoRenew: AUTO_RENEW_OFF,
  };
  const row = stored({ planId: 'pro', pendingPlanId: 'basic', pendingPlanAt: end });

  it("shows the plan's features while active, none once the period is over, and the pending change", () => {
    expect(toSubscriptionDto(ADDRESS, row, start, pro)).toMatchObject({
      plan: { id: 'pro', name: 'Pro' },
      features: ['api.calls', 'export.csv'],
      pendingPlan: { id: 'basic', name: 'Basic', effectiveAt: '2030-01-31T00:00:00.000Z' },
    });
    expect(toSubscriptionDto(ADDRESS, row, end, pro).features).toEqual([]);
  });

  it('builds a cached row view again when its plan is read anew (an operator may have changed its features)', () => {
    const first = subscriptionDtoOfRow(ADDRESS, row, start, pro);
    const renamed = { ...pro, plan: { ...pro.plan, features: ['api.calls'] } };
    expect(subscriptionDtoOfRow(ADDRESS, row, start, pro)).toBe(first);
    expect(subscriptionDtoOfRow(ADDRESS, row, start, renamed).features).toEqual(['api.calls']);
  });
});
