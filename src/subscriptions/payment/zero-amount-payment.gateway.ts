import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../../database/database.service.js';
import { SubscriptionsRepository } from '../subscriptions.repository.js';
import type { PaymentGateway, PaymentRequest } from './payment-gateway.js';

/** The default gateway (`PAYMENT_GATEWAY=default`): approves every renewal and records it as a free payment. */
@Injectable()
export class ZeroAmountPaymentGateway implements PaymentGateway {
  static readonly gatewayName = 'zero_amount';

  constructor(private readonly repository: SubscriptionsRepository) {}

  async charge(tx: SqlExecutor, request: PaymentRequest): Promise<void> {
    await this.repository.insertPayment(tx, {
      address: request.address,
      gateway: ZeroAmountPaymentGateway.gatewayName,
      amountMinor: 0n,
      currency: null,
      periodStart: request.periodStart,
      periodEnd: request.periodEnd,
    });
  }
}
