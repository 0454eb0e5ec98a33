import { checksumAddress } from '../../common/address/wallet-address.js';
import type {
  OnChainTerms,
  PaymentCredit,
  PaymentGateway,
  RenewalPaymentRequest,
} from './payment-gateway.js';
import { PaymentErrors } from './payment.errors.js';

/** One period for nothing: recorded as a zero-amount payment, so every renewal has its payment row. */
const ONE_FREE_PERIOD: readonly PaymentCredit[] = Object.freeze([
  Object.freeze({ periods: 1, amountMinor: 0n, transfer: null }),
]);

/** Nobody pays through the API here: a proof of payment is refused (400) rather than ignored. */
function refuseProof(gateway: string, txHash: string | undefined): void {
  if (txHash !== undefined) throw PaymentErrors.notExpected(gateway);
}

/**
 * `PAYMENT_GATEWAY=free`: every renewal is approved. For development and tests; in production it must be chosen
 * explicitly (the configuration refuses to default to it there).
 */
export class FreePaymentGateway implements PaymentGateway {
  readonly name = 'free';

  approve({ txHash }: RenewalPaymentRequest): Promise<readonly PaymentCredit[]> {
    refuseProof(this.name, txHash);
    return Promise.resolve(ONE_FREE_PERIOD);
  }

  terms(): Promise<OnChainTerms | null> {
    return Promise.resolve(null);
  }
}

/**
 * `PAYMENT_GATEWAY=operator`: the integrator bills its customers itself and renews from its servers. Only an
 * operator (OPERATOR_ADDRESSES), or an API key an operator created, may renew; a wallet renewing itself is refused.
 */
export class OperatorPaymentGateway implements PaymentGateway {
  readonly name = 'operator';

  approve({ principal, txHash }: RenewalPaymentRequest): Promise<readonly PaymentCredit[]> {
    refuseProof(this.name, txHash);
    if (!principal.operator) throw PaymentErrors.operatorOnly(checksumAddress(principal.address));
    return Promise.resolve(ONE_FREE_PERIOD);
  }

  terms(): Promise<OnChainTerms | null> {
    return Promise.resolve(null);
  }
}
