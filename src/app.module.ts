import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/app-config.module.js';
import { ApiExceptionFilter } from './common/http/api-exception.filter.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { DatabaseModule } from './database/database.module.js';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { KeeperModule } from './auto-renew/keeper/keeper.module.js';
import { AuthModule } from './auth/auth.module.js';
import { AutoRenewModule, type AutoRenewOptions } from './auto-renew/auto-renew.module.js';
import { CacheModule } from './cache/cache.module.js';
import { EntitlementsModule } from './entitlements/entitlements.module.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PlansModule } from './plans/plans.module.js';
import { SubscriptionsModule } from './subscriptions/subscriptions.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

@Module({})
export class AppModule {
  /** `autoRenew`: what the composition root hands automatic renewal (the keeper's executor, a test's). */
  static forRoot(config: AppConfig, autoRenew: AutoRenewOptions = {}): DynamicModule {
    if (!config.databaseUrl) throw new Error('AppModule needs a database URL (start the embedded one first)');
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule.forRoot({
          url: config.databaseUrl,
          poolSize: config.databasePoolSize,
          pooler: config.databasePooler,
          sessionUrl: config.databaseSessionUrl,
          startTimeoutMs: config.databaseStartTimeoutMs,
        }),
        CacheModule,
        MetricsModule,
        HealthModule,
        AuthModule,
        ApiKeysModule,
        EventsModule,
        PlansModule,
        SubscriptionsModule,
        AutoRenewModule.forRoot(autoRenew),
        EntitlementsModule,
        WebhooksModule,
        KeeperModule,
        DashboardModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
