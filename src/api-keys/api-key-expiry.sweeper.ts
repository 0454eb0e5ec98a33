import { Inject, Injectable } from '@nestjs/common';
import { Sweeper } from '../database/sweeper.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService, USAGE_DAYS } from './api-keys.service.js';

/** How often the sweep runs: an expired key's `api_key.expired` goes out within this of its expiry. */
export const API_KEY_SWEEP_INTERVAL_MS = 5_000;
/** Notices of each kind recorded per transaction; a sweep keeps going while batches come back full. */
const SWEEP_BATCH_SIZE = 100;
/** Daily usage counts older than the usage answer's days are purged about this often. */
const USAGE_PURGE_INTERVAL_MS = 3_600_000;

/**
 * Background job (only where `workersEnabled`, WEBHOOK_WORKERS) that records `api_key.expiring` and
 * `api_key.expired`. Refusing an expired key never waits for it: the strategy compares the expiry with the clock.
 * Several instances may sweep at once; the claims in ApiKeysRepository keep each key's notices to one each.
 */
@Injectable()
export class ApiKeyExpirySweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly apiKeys: ApiKeysService,
  ) {
    super({
      enabled: config.workersEnabled,
      intervalMs: API_KEY_SWEEP_INTERVAL_MS,
      name: 'API key expiry sweep',
    });
  }

  protected async sweep(): Promise<void> {
    await this.drain(
      () => this.apiKeys.recordDueExpiryNotices(SWEEP_BATCH_SIZE),
      SWEEP_BATCH_SIZE,
      'recorded API key expiry notices',
    );
  }
}

/** Background job (only where `workersEnabled`) that deletes the daily usage counts the usage answer no longer shows. */
@Injectable()
export class ApiKeyUsagePurgeSweeper extends Sweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: ApiKeysRepository,
  ) {
    super({
      enabled: config.workersEnabled,
      intervalMs: USAGE_PURGE_INTERVAL_MS,
      name: 'API key usage purge',
    });
  }

  protected async sweep(): Promise<void> {
    await this.repository.purgeUsage(USAGE_DAYS);
  }
}
