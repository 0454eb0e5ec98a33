import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/app-config.module.js';
import { ApiExceptionFilter } from './common/http/api-exception.filter.js';
import { dataSourceOptions } from './database/data-source.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { DatabaseModule } from './database/database.module.js';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CacheModule } from './cache/cache.module.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { SubscriptionsModule } from './subscriptions/subscriptions.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    if (!config.databaseUrl) throw new Error('AppModule needs a database URL (start the embedded one first)');
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        TypeOrmModule.forRoot({
          ...dataSourceOptions({ url: config.databaseUrl, poolSize: config.databasePoolSize }),
          // Fail fast at start instead of retrying: the orchestrator (or compose's restart policy) restarts us.
          retryAttempts: 0,
        }),
        DatabaseModule,
        CacheModule,
        MetricsModule,
        HealthModule,
        AuthModule,
        ApiKeysModule,
        EventsModule,
        SubscriptionsModule,
        WebhooksModule,
        DashboardModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
