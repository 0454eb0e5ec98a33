import { Module } from '@nestjs/common';
import { PlansModule } from '../plans/plans.module.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { erc20PaymentSettings, paymentGatewayOf, type PaymentGatewayName } from '../config/settings.js';
import { IdempotencyRepository } from './idempotency/idempotency.repository.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from './payment/payment-gateway.js';
import { FreePaymentGateway, OperatorPaymentGateway } from './payment/billed-elsewhere.gateways.js';
import { Erc20PaymentGateway } from './payment/erc20-payment.gateway.js';
import {
  SubscriptionReminderPurgeSweeper,
  SubscriptionReminderSweeper,
} from './reminders/subscription-reminder.sweeper.js';
import { SubscriptionRemindersRepository } from './reminders/subscription-reminders.repository.js';
import { SubscriptionAutoRenew } from './subscription-auto-renew.js';
import { SubscriptionCredits } from './subscription-credits.service.js';
import { SubscriptionDunning } from './subscription-dunning.service.js';
import { SubscriptionExpirySweeper } from './subscription-expiry.sweeper.js';
import { SubscriptionPlanChangeSweeper } from './subscription-plan-change.sweeper.js';
import { SubscriptionLookup } from './subscription-lookup.service.js';
import { SubscriptionPlanReader } from './subscription-plans.js';
import { SubscriptionReads } from './subscription-reads.service.js';
import { SubscriptionsController } from './subscriptions.controller.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions.service.js';

/**
 * Exports the seams other features use (docs/extending.md, "Depending on another feature"): SubscriptionCredits to
 * add periods in the caller's transaction, SubscriptionDunning to report a failed automatic charge,
 * SubscriptionAutoRenew to show an automatic renewal in the subscription object, SubscriptionLookup to read a
 * subscription. Nothing else is theirs to use.
 */
@Module({
  imports: [PlansModule],
  controllers: [SubscriptionsController],
  providers: [
    SubscriptionsService,
    SubscriptionsRepository,
    SubscriptionCredits,
    SubscriptionDunning,
    SubscriptionAutoRenew,
    SubscriptionLookup,
    SubscriptionPlanReader,
    SubscriptionReads,
    IdempotencyService,
    IdempotencyRepository,
    SubscriptionExpirySweeper,
    SubscriptionPlanChangeSweeper,
    SubscriptionReminderSweeper,
    SubscriptionReminderPurgeSweeper,
    SubscriptionRemindersRepository,
    {
      provide: PAYMENT_GATEWAY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): PaymentGateway => {
        // Keyed by every value PAYMENT_GATEWAY may take, so a new one cannot be configured without an adapter.
        const gateways: Record<PaymentGatewayName, () => PaymentGateway> = {
          free: () => new FreePaymentGateway(),
          operator: () => new OperatorPaymentGateway(),
          erc20: () => new Erc20PaymentGateway(erc20PaymentSettings(config), config.chainRpcTimeoutMs),
        };
        return gateways[paymentGatewayOf(config)]();
      },
    },
  ],
  exports: [SubscriptionCredits, SubscriptionDunning, SubscriptionAutoRenew, SubscriptionLookup],
})
export class SubscriptionsModule {}
