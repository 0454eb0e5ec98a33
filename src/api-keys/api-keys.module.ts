import { Module } from '@nestjs/common';
import { ApiKeyExpirySweeper, ApiKeyUsagePurgeSweeper } from './api-key-expiry.sweeper.js';
import { ApiKeyLookup } from './api-key-lookup.service.js';
import { ApiKeyStrategy } from './api-key.strategy.js';
import { ApiKeyUsageTracker } from './api-key-usage.tracker.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';

/**
 * API keys: their routes, the 'api-key' passport strategy (which registers itself with passport by name), use
 * counting and the expiry sweep.
 */
@Module({
  controllers: [ApiKeysController],
  providers: [
    ApiKeysService,
    ApiKeysRepository,
    ApiKeyLookup,
    ApiKeyUsageTracker,
    ApiKeyStrategy,
    ApiKeyExpirySweeper,
    ApiKeyUsagePurgeSweeper,
  ],
})
export class ApiKeysModule {}
