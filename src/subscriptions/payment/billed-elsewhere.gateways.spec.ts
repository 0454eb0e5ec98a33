import type { Principal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { FreePaymentGateway, OperatorPaymentGateway } from './billed-elsewhere.gateways.js';
import type { PaymentGateway } from './payment-gateway.js';

const ADDRESS = '0x52908400098527886e0f7030069857d2e4169ee7';
const TX = `0x${'ab'.repeat(32)}`;
const wallet: Principal = { address: ADDRESS, scopes: [], operator: false, via: 'jwt', tokenId: 't' };
const operator: Principal = { ...wallet, operator: true };

/** The refusal `approve` throws, as the client sees it: status and details. */
async function refusal(approved: Promise<unknown>): Promise<{ status: number; details: unknown }> {
  const error = await approved.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  const { code, details } = error as ApiError;
  return { status: (error as ApiError).getStatus(), details: { code, ...details } };
}

describe.each<[string, PaymentGateway]>([
  ['free', new FreePaymentGateway()],
  ['operator', new OperatorPaymentGateway()],
])('the %s gateway', (name, gateway) => {
  it('refuses a proof of payment with 400 payment_not_expected, before any other check', async () => {
    // A wallet that may not renew under `operator` still hears first that the proof is not taken.
    for (const principal of [wallet, operator]) {
      expect(
        await refusal(
          Promise.resolve().then(() => gateway.approve({ principal, address: ADDRESS, txHash: TX })),
        ),
      ).toEqual({ status: 400, details: { code: 'payment_not_expected', gateway: name } });
    }
  });

  it('approves an operator without a proof: one period, nothing paid', async () => {
    const credits = await gateway.approve({ principal: operator, address: ADDRESS, txHash: undefined });
    expect(credits).toEqual([{ periods: 1, amountMinor: 0n, transfer: null }]);
  });
});
