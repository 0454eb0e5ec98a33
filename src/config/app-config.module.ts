import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from './settings.js';

/** Injection token of the validated {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * Provides the configuration as a value rather than reading `process.env` inside modules: it is validated once at
 * start (main.ts, worker.ts), and tests build it from their own variables.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
