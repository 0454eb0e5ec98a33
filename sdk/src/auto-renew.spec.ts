import { jest } from '@jest/globals';
import { getAddress, type Hex, verifyTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  type Mandate as ServiceMandate,
  mandateHash,
  mandateTypedData as serviceTypedData,
  mandateTypes,
} from '../../src/auto-renew/mandate.js';
import {
  type AutoRenewTerms,
  buildMandate,
  enableAutoRenew,
  MANDATE_TYPES,
  type Mandate,
} from './auto-renew.js';
import { createTollgateClient } from './client.js';

const CHARGER = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
const TOKEN = getAddress('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
const PAYEE = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const TERMS: AutoRenewTerms = {
  gateway: 'erc20',
  chainId: 8453,
  charger: CHARGER,
  token: TOKEN,
  payee: PAYEE,
  amount: '5000000',
  periodSeconds: 2_592_000,
};
/** What `free` offers: nothing to sign. */
const FREE_TERMS: AutoRenewTerms = {
  gateway: 'free',
  chainId: null,
  charger: null,
  token: null,
  payee: null,
  amount: '0',
  periodSeconds: 2_592_000,
};
const PLAN = { pricePerPeriod: '7000000', periodSeconds: 604_800 };
/** Not a whole second: `start` is rounded down, as the service does. */
const PERIOD_END = '2026-12-22T01:30:00.999Z';

/** The mandate as the service reads a registration (src/auto-renew/auto-renew.service.ts, toMandate). */
function asService(mandate: Mandate): ServiceMandate {
  return {
    payer: getAddress(mandate.payer),
    token: getAddress(mandate.token),
    payee: getAddress(mandate.payee),
    amount: BigInt(mandate.amount),
    periodSeconds: BigInt(mandate.periodSeconds),
    start: BigInt(mandate.start),
    periods: BigInt(mandate.periods),
    salt: mandate.salt.toLowerCase() as Hex,
  };
}

describe('the mandate the client builds', () => {
  const payer = privateKeyToAccount(generatePrivateKey());

  it('has the EIP-712 types of the service (and so of the charging contract)', () => {
    expect(MANDATE_TYPES).toEqual(mandateTypes);
  });

  it("takes the terms' token and payee, the plan's price and period, and the period end rounded down", () => {
    const { mandate, charger, chainId } = buildMandate({
      terms: TERMS,
      payer: payer.address,
      currentPeriodEnd: PERIOD_END,
      plan: PLAN,
      periods: 12,
    });
    expect(mandate).toEqual({
      payer: payer.address,
      token: TOKEN,
      payee: PAYEE,
      amount: '7000000',
      periodSeconds: '604800',
      start: String(Math.floor(Date.parse('2026-12-22T01:30:00Z') / 1000)),
      periods: '12',
      salt: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect({ charger, chainId }).toEqual({ charger: CHARGER, chainId: 8453 });
  });

  it('is signed so that the service verifies the signature against its own type definition', async () => {
    const { mandate, typedData } = buildMandate({
      terms: TERMS,
      payer: payer.address,
      currentPeriodEnd: PERIOD_END,
      plan: PLAN,
      periods: 3,
    });
    const signature = await payer.signTypedData(typedData);
    const service = serviceTypedData(asService(mandate), TERMS.chainId!, CHARGER);
    expect(await verifyTypedData({ ...service, address: payer.address, signature })).toBe(true);
    // Another key's signature, or a signature of other terms, is not the payer's.
    const other = privateKeyToAccount(generatePrivateKey());
    const forged = await other.signTypedData(typedData);
    expect(await verifyTypedData({ ...service, address: payer.address, signature: forged })).toBe(false);
    const longer = serviceTypedData({ ...asService(mandate), periods: 4n }, TERMS.chainId!, CHARGER);
    expect(await verifyTypedData({ ...longer, address: payer.address, signature })).toBe(false);
  });

  it('gives each mandate a salt of its own, or the one asked for', () => {
    const input = {
      terms: TERMS,
      payer: payer.address,
      currentPeriodEnd: PERIOD_END,
      plan: PLAN,
      periods: 1,
    };
    const salts = new Set(Array.from({ length: 5 }, () => buildMandate(input).mandate.salt));
    expect(salts.size).toBe(5);
    const salt = `0x${'07'.repeat(32)}` as const;
    const fixed = buildMandate({ ...input, salt });
    expect(fixed.mandate.salt).toBe(salt);
    expect(mandateHash(asService(fixed.mandate), TERMS.chainId!, CHARGER)).toBe(
      mandateHash(asService(buildMandate({ ...input, salt }).mandate), TERMS.chainId!, CHARGER),
    );
  });

  it('refuses terms without a chain (free) and periods the service would refuse', () => {
    const input = { terms: TERMS, payer: payer.address, currentPeriodEnd: PERIOD_END, plan: PLAN };
    expect(() => buildMandate({ ...input, terms: FREE_TERMS, periods: 1 })).toThrow(/erc20 gateway only/);
    for (const periods of [0, 1201, 1.5]) {
      expect(() => buildMandate({ ...input, periods })).toThrow(RangeError);
    }
  });
});

describe('enableAutoRenew', () => {
  const payer = privateKeyToAccount(generatePrivateKey());

  /** A service answering the reads a registration needs, and recording the registration it gets. */
  function service(terms: AutoRenewTerms | null, state: Record<string, unknown> = {}) {
    const posted: unknown[] = [];
    const subscription = {
      address: payer.address,
      status: 'active',
      active: true,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: PERIOD_END,
      plan: { id: 'pro', name: 'Pro' },
      ...state,
    };
    const answers: Record<string, unknown> = {
      '/subscriptions/plan': { gateway: terms?.gateway ?? 'operator', autoRenew: terms },
      '/subscriptions/status': subscription,
      '/plans/pro': { id: 'pro', ...PLAN },
    };
    const client = createTollgateClient({
      baseUrl: 'http://127.0.0.1:1',
      maxRetries: 0,
      fetch: async (request) => {
        const path = new URL(request.url).pathname;
        if (request.method === 'POST') posted.push({ path, body: await request.json() });
        const body = answers[path] ?? subscription;
        return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
      },
    });
    return { client, posted };
  }

  it("under erc20, registers the mandate of the subscription's plan with the signer's signature", async () => {
    const { client, posted } = service(TERMS);
    await enableAutoRenew(client, { signer: payer, periods: 6 });
    expect(posted).toHaveLength(1);
    const { path, body } = posted[0] as { path: string; body: { mandate: Mandate; signature: Hex } };
    expect(path).toBe('/subscriptions/auto-renew');
    expect(body.mandate).toMatchObject({ amount: '7000000', periodSeconds: '604800', periods: '6' });
    const signed = serviceTypedData(asService(body.mandate), TERMS.chainId!, CHARGER);
    expect(await verifyTypedData({ ...signed, address: payer.address, signature: body.signature })).toBe(
      true,
    );
  });

  it('under free, registers without a mandate, with the periods asked for', async () => {
    const { client, posted } = service(FREE_TERMS);
    await enableAutoRenew(client, { periods: 3 });
    await enableAutoRenew(client);
    expect(posted).toEqual([
      { path: '/subscriptions/auto-renew', body: { periods: 3 } },
      { path: '/subscriptions/auto-renew', body: {} },
    ]);
  });

  it("under erc20 without a signer, or with another wallet's, signs and sends nothing", async () => {
    const { client, posted } = service(TERMS);
    await expect(enableAutoRenew(client)).rejects.toThrow(/needs a signer/);
    const other = privateKeyToAccount(generatePrivateKey());
    const signTypedData = jest.spyOn(other, 'signTypedData');
    await expect(enableAutoRenew(client, { signer: other })).rejects.toThrow(
      `the mandate is the subscription's wallet's (${payer.address}) to sign, not ${other.address}'s`,
    );
    expect(signTypedData).not.toHaveBeenCalled();
    expect(posted).toEqual([]);
  });

  it('signs nothing for a subscription the service would refuse, and lets the service say why', async () => {
    for (const state of [{ cancelAtPeriodEnd: true }, { active: false, status: 'expired' }]) {
      const { client, posted } = service(TERMS, state);
      const signTypedData = jest.spyOn(payer, 'signTypedData');
      await enableAutoRenew(client, { signer: payer });
      expect(signTypedData).not.toHaveBeenCalled();
      expect(posted).toEqual([{ path: '/subscriptions/auto-renew', body: {} }]);
      signTypedData.mockRestore();
    }
  });
});
