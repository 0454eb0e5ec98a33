import { defaultPlan, PLAN_FEATURE, PLAN_ID } from './plan.js';

describe('defaultPlan', () => {
  const settings = { subscriptionPeriodSeconds: 2_592_000, paymentPricePerPeriod: 5_000_000n };

  it('costs PAYMENT_PRICE_PER_PERIOD under erc20, exactly, past 2^53 too', () => {
    expect(defaultPlan({ ...settings, paymentGateway: 'erc20' })).toMatchObject({
      id: 'default',
      periodSeconds: 2_592_000,
      pricePerPeriod: 5_000_000n,
    });
    const large = 2n ** 255n + 1n;
    expect(
      defaultPlan({ ...settings, paymentGateway: 'erc20', paymentPricePerPeriod: large }).pricePerPeriod,
    ).toBe(large);
  });

  it.each([['free'], ['operator'], [undefined]])(
    'is free under %s, whatever the price setting says',
    (gateway) => {
      expect(defaultPlan({ ...settings, paymentGateway: gateway }).pricePerPeriod).toBe(0n);
    },
  );

  it('has no features, no trial, and no stored times', () => {
    expect(defaultPlan({ ...settings, paymentGateway: 'free' })).toMatchObject({
      features: [],
      trialSeconds: null,
      archivedAt: null,
      createdAt: null,
      updatedAt: null,
    });
  });
});

describe('the id and feature formats (the same as the table checks)', () => {
  it('takes slugs and feature keys, and nothing else', () => {
    expect(['pro', 'a', '0-tier', 'a'.repeat(32)].every((id) => PLAN_ID.test(id))).toBe(true);
    expect(['', '-a', 'Pro', 'a_b', 'a'.repeat(33), 'pro\n'].some((id) => PLAN_ID.test(id))).toBe(false);
    expect(['api.calls', 'export_csv', 'a-b', 'x'.repeat(64)].every((key) => PLAN_FEATURE.test(key))).toBe(
      true,
    );
    expect(['', 'A', 'a,b', 'a b', 'x'.repeat(65)].some((key) => PLAN_FEATURE.test(key))).toBe(false);
  });
});
