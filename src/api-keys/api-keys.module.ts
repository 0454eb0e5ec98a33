import { Module } from '@nestjs/common';
import { API_KEY_STRATEGY } from '../auth/guards/authentication.guard.js';
import { ApiKeyLookup } from './api-key-lookup.service.js';
import { ApiKeyStrategy } from './api-key.strategy.js';
import { ApiKeyUsageTracker } from './api-key-usage.tracker.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';

@Module({
  controllers: [ApiKeysController],
  providers: [
    ApiKeysService,
    ApiKeysRepository,
    ApiKeyLookup,
    ApiKeyUsageTracker,
    ApiKeyStrategy,
    { provide: API_KEY_STRATEGY, useExisting: ApiKeyStrategy },
  ],
  exports: [API_KEY_STRATEGY],
})
export class ApiKeysModule {}
