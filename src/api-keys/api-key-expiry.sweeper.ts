import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { RepeatingJob } from '../common/jobs/repeating-job.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService, USAGE_DAYS } from './api-keys.service.js';

/** How often the sweep runs: an expired key's `api_key.expired` goes out within this of its expiry. */
export const API_KEY_SWEEP_INTERVAL_MS = 5_000;
/** Notices of each kind recorded per transaction; a sweep keeps going while batches come back full. */
const SWEEP_BATCH_SIZE = 100;
/** Daily usage counts older than the usage answer's days are purged about this often. */
const USAGE_PURGE_EVERY_MS = 3_600_000;

/**
 * Background job (only where `workersEnabled`, WEBHOOK_WORKERS) that records `api_key.expiring` and
 * `api_key.expired`. Refusing an expired key never waits for it: the strategy compares the expiry with the clock.
 * Several instances may sweep at once; the claims in ApiKeysRepository keep each key's notices to one each.
 */
@Injectable()
export class ApiKeyExpirySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyExpirySweeper.name);
  private readonly job = new RepeatingJob(() => this.sweep(), API_KEY_SWEEP_INTERVAL_MS);
  private lastUsagePurge = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apiKeys: ApiKeysService,
    private readonly repository: ApiKeysRepository,
  ) {}

  onApplicationBootstrap(): void {
    // Right away first: notices that fell due while no instance was running are caught up at start.
    if (this.config.workersEnabled) this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  private async sweep(): Promise<void> {
    try {
      let recorded: number;
      do {
        recorded = await this.apiKeys.recordDueExpiryNotices(SWEEP_BATCH_SIZE);
        if (recorded > 0) this.logger.log({ recorded, msg: 'recorded API key expiry notices' });
      } while (recorded >= SWEEP_BATCH_SIZE && !this.job.isStopped);
      if (Date.now() - this.lastUsagePurge >= USAGE_PURGE_EVERY_MS) {
        await this.repository.purgeUsage(USAGE_DAYS);
        this.lastUsagePurge = Date.now();
      }
    } catch (error) {
      this.logger.warn(`API key expiry sweep failed, retrying next round: ${(error as Error).message}`);
    }
  }
}
