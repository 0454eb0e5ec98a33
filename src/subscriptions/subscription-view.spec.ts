import { subscriptionDtoOfRow, toSubscriptionDto } from './subscription-view.js';
import type { StoredSubscription } from './subscriptions.repository.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const start = new Date('2030-01-01T00:00:00.000Z');
const end = new Date('2030-01-31T00:00:00.000Z');

const stored = (overrides: Partial<StoredSubscription> = {}): StoredSubscription => ({
  address: ADDRESS.toLowerCase(),
  currentPeriodStart: start,
  currentPeriodEnd: end,
  cancelAtPeriodEnd: false,
  canceledAt: null,
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
    expect(toSubscriptionDto(ADDRESS.toLowerCase(), null, start)).toEqual({
      address: ADDRESS,
      status: 'none',
      active: false,
      currentPeriodStart: null,
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      createdAt: null,
      updatedAt: null,
    });
  });

  it('returns the EIP-55 address and ISO timestamps with milliseconds', () => {
    expect(toSubscriptionDto(ADDRESS.toLowerCase(), stored(), new Date(start.getTime() + 1))).toEqual({
      address: ADDRESS,
      status: 'active',
      active: true,
      currentPeriodStart: '2030-01-01T00:00:00.000Z',
      currentPeriodEnd: '2030-01-31T00:00:00.000Z',
      cancelAtPeriodEnd: false,
      canceledAt: null,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-01T00:00:00.000Z',
    });
  });

  it('computes the status at the given instant: the period end itself is no longer covered', () => {
    const canceled = stored({ cancelAtPeriodEnd: true, canceledAt: start });
    expect(toSubscriptionDto(ADDRESS, stored(), new Date(end.getTime() - 1))).toMatchObject({
      status: 'active',
      active: true,
    });
    expect(toSubscriptionDto(ADDRESS, stored(), end)).toMatchObject({ status: 'expired', active: false });
    expect(toSubscriptionDto(ADDRESS, canceled, end)).toMatchObject({
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
    const during = subscriptionDtoOfRow(ADDRESS, row, new Date(end.getTime() - 1));
    expect(during).toEqual(toSubscriptionDto(ADDRESS, row, new Date(end.getTime() - 1)));
    expect(during.status).toBe('active');
    expect(subscriptionDtoOfRow(ADDRESS, row, start)).toBe(during);
    const after = subscriptionDtoOfRow(ADDRESS, row, end);
    expect(after).toEqual(toSubscriptionDto(ADDRESS, row, end));
    expect(after.status).toBe('canceled');
    expect(subscriptionDtoOfRow(ADDRESS, row, new Date(end.getTime() + 86_400_000))).toBe(after);
    expect(Object.isFrozen(after)).toBe(true);
  });

  it('builds separate views for separate rows (a renewal loads a new row)', () => {
    const before = stored();
    const renewed = stored({ currentPeriodEnd: new Date(end.getTime() + 86_400_000) });
    const now = new Date(end.getTime() + 1000);
    expect(subscriptionDtoOfRow(ADDRESS, before, now).status).toBe('expired');
    expect(subscriptionDtoOfRow(ADDRESS, renewed, now).status).toBe('active');
  });
});
