import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { IdempotencyRepository } from './idempotency/idempotency.repository.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from './payment/payment-gateway.js';
import { ZeroAmountPaymentGateway } from './payment/zero-amount-payment.gateway.js';
import { SubscriptionExpirySweeper } from './subscription-expiry.sweeper.js';
import { SubscriptionReads } from './subscription-reads.service.js';
import { SubscriptionsController } from './subscriptions.controller.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions.service.js';

@Module({
  controllers: [SubscriptionsController],
  providers: [
    SubscriptionsService,
    SubscriptionsRepository,
    SubscriptionReads,
    IdempotencyService,
    IdempotencyRepository,
    SubscriptionExpirySweeper,
    ZeroAmountPaymentGateway,
    {
      provide: PAYMENT_GATEWAY,
      inject: [APP_CONFIG, ZeroAmountPaymentGateway],
      useFactory: (config: AppConfig, zeroAmount: ZeroAmountPaymentGateway): PaymentGateway => {
        // Keyed by every value PAYMENT_GATEWAY may take, so a new one cannot be configured without an adapter.
        const gateways: Record<AppConfig['paymentGateway'], PaymentGateway> = { default: zeroAmount };
        return gateways[config.paymentGateway];
      },
    },
  ],
})
export class SubscriptionsModule {}
