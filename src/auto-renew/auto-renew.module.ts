import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { paymentGatewayOf } from '../config/settings.js';
import { PlansModule } from '../plans/plans.module.js';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module.js';
import { AutoRenewController } from './auto-renew.controller.js';
import { AutoRenewRepository } from './auto-renew.repository.js';
import { AutoRenewService } from './auto-renew.service.js';
import { AutoRenewSweeper } from './auto-renew.sweeper.js';
import { AutoRenewChainModule } from './chain-client.js';
import { ChargedLogFollower } from './charged-log-follower.js';
import { CHARGE_EXECUTOR, type ChargeExecutor } from './charge-executor.js';
import { FreeChargeExecutor } from './free-charge-executor.js';
import { MandateReads } from './mandate-reads.service.js';
import type { Erc20ChargeExecutor } from './keeper/erc20-charge-executor.js';
import { KEEPER_EXECUTOR, KeeperModule } from './keeper/keeper.module.js';

export interface AutoRenewOptions {
  /**
   * The executor; by default the keeper's under `erc20`, zero payments under `free`. A test may hand in its own, under either gateway, to script the
   * outcomes of charges.
   */
  chargeExecutor?: ChargeExecutor;
}

/**
 * Automatic renewal (docs/auto-renew.md): the routes under /subscriptions/auto-renew, the renewal sweep and the
 * Charged-log follower.
 */
@Module({})
export class AutoRenewModule {
  static forRoot(options: AutoRenewOptions = {}): DynamicModule {
    return {
      module: AutoRenewModule,
      imports: [SubscriptionsModule, PlansModule, AutoRenewChainModule, KeeperModule],
      controllers: [AutoRenewController],
      providers: [
        AutoRenewService,
        AutoRenewRepository,
        AutoRenewSweeper,
        ChargedLogFollower,
        MandateReads,
        {
          provide: CHARGE_EXECUTOR,
          inject: [APP_CONFIG, KEEPER_EXECUTOR],
          // Under `erc20` the keeper's, null (nothing charged) when it has no key or no charging contract.
          useFactory: (config: AppConfig, keeper: Erc20ChargeExecutor | null): ChargeExecutor | null =>
            options.chargeExecutor ??
            (paymentGatewayOf(config) === 'free' ? new FreeChargeExecutor() : keeper),
        },
      ],
    };
  }
}
