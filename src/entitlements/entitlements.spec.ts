import { entitlementOf, entitlementsOf, type SubscriptionInForce } from './entitlements.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const END = '2026-12-22T01:30:00.000Z';
const pro = { id: 'pro', name: 'Pro' };

const inForce: SubscriptionInForce = {
  address: ADDRESS,
  plan: pro,
  features: ['api.calls', 'export.csv'],
  currentPeriodEnd: END,
  graceEndsAt: null,
};
/** Expired or cancelled: the plan is still named, its features are not in force. */
const lapsed: SubscriptionInForce = { ...inForce, features: [] };

describe('entitlements', () => {
  it('grants a feature of the plan in force until the period end', () => {
    expect(entitlementOf(inForce, 'export.csv')).toEqual({
      address: ADDRESS,
      feature: 'export.csv',
      entitled: true,
      plan: pro,
      until: END,
    });
  });

  it('refuses a feature the plan does not list, and every feature once nothing is in force', () => {
    expect(entitlementOf(inForce, 'sso')).toMatchObject({ entitled: false, until: null });
    expect(entitlementOf(lapsed, 'export.csv')).toMatchObject({ entitled: false, until: null, plan: pro });
  });

  it('lists the features in force with their end, and none with no end once lapsed', () => {
    expect(entitlementsOf(inForce)).toEqual({
      address: ADDRESS,
      plan: pro,
      features: ['api.calls', 'export.csv'],
      until: END,
    });
    expect(entitlementsOf(lapsed)).toEqual({ address: ADDRESS, plan: pro, features: [], until: null });
  });

  it('keeps the features until the grace ends while a failed payment is retried, past the period end', () => {
    const graceEndsAt = '2026-12-25T01:30:00.000Z';
    const pastDue: SubscriptionInForce = { ...inForce, graceEndsAt };
    expect(entitlementOf(pastDue, 'export.csv')).toMatchObject({ entitled: true, until: graceEndsAt });
    expect(entitlementsOf(pastDue)).toMatchObject({
      features: ['api.calls', 'export.csv'],
      until: graceEndsAt,
    });
  });

  it('hands out copies, so a caller cannot change the cached subscription', () => {
    const list = entitlementsOf(inForce);
    list.features.push('sso');
    list.plan.name = 'changed';
    expect(inForce.features).toEqual(['api.calls', 'export.csv']);
    expect(inForce.plan.name).toBe('Pro');
  });
});
