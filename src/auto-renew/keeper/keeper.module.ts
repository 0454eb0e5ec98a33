import { Inject, Logger, Module, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import type { PublicClient } from 'viem';
import { erc20PaymentSettings, keeperKeyOf } from '../../config/settings.js';
import { HealthModule } from '../../health/health.module.js';
import { HealthNotes } from '../../health/health-notes.js';
import { Metrics } from '../../metrics/metrics.service.js';
import { AUTO_RENEW_CHAIN, AutoRenewChainModule } from '../chain-client.js';
import { Erc20ChargeExecutor } from './erc20-charge-executor.js';
import { KeeperMetrics } from './keeper.metrics.js';
import { KeeperRepository } from './keeper.repository.js';

/**
 * The `erc20` keeper, or null where it cannot charge: another gateway, no `AUTO_RENEW_CHARGER_ADDRESS`, or no key
 * (refused at start in production). The auto-renew module picks it as its `ChargeExecutor` under `erc20`.
 */
export const KEEPER_EXECUTOR = Symbol('KEEPER_EXECUTOR');

@Module({
  imports: [HealthModule, AutoRenewChainModule],
  providers: [
    KeeperRepository,
    {
      provide: KEEPER_EXECUTOR,
      inject: [APP_CONFIG, KeeperRepository, Metrics, AUTO_RENEW_CHAIN],
      useFactory: (
        config: AppConfig,
        repository: KeeperRepository,
        metrics: Metrics,
        client: PublicClient | null,
      ) => {
        const key = keeperKeyOf(config);
        const charger = config.autoRenewChargerAddress;
        if (client === null || charger === undefined) return null;
        if (key === undefined) {
          new Logger('Keeper').warn(
            'AUTO_RENEW_CHARGER_ADDRESS is set without a keeper key: nothing is charged',
          );
          return null;
        }
        const payment = erc20PaymentSettings(config);
        const executor: Erc20ChargeExecutor = new Erc20ChargeExecutor(
          {
            client,
            chainId: payment.chainId,
            charger,
            privateKey: key,
            confirmations: payment.confirmations,
            replaceAfterSeconds: config.keeperReplaceAfterSeconds,
          },
          repository,
          new KeeperMetrics(metrics, {
            balanceWei: () => executor.balance(),
            oldestWaitingSeconds: () => repository.oldestWaitingSeconds(),
          }),
        );
        return executor;
      },
    },
  ],
  exports: [KEEPER_EXECUTOR],
})
export class KeeperModule implements OnModuleInit {
  constructor(
    @Inject(KEEPER_EXECUTOR) private readonly keeper: Erc20ChargeExecutor | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly notes: HealthNotes,
  ) {}

  /** Names the keeper in `/health` and `/health/ready` with its balance, `low` below `KEEPER_MIN_BALANCE_WEI`. */
  onModuleInit(): void {
    const keeper = this.keeper;
    if (!keeper) return;
    const minimum = this.config.keeperMinBalanceWei;
    new Logger('Keeper').log(`keeper ${keeper.address} charges through AUTO_RENEW_CHARGER_ADDRESS`);
    this.notes.registerKeeper(async () => {
      const base = { address: keeper.address, minBalanceWei: minimum.toString() };
      try {
        const wei = await withTimeout(keeper.balance(), this.config.chainRpcTimeoutMs);
        return { ...base, status: wei < minimum ? 'low' : 'up', balanceWei: wei.toString() };
      } catch {
        return { ...base, status: 'unknown' };
      }
    });
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
