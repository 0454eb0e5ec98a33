import { Inject, Injectable, Logger } from '@nestjs/common';
import { runMigrations } from 'graphile-worker';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/app-config.module.js';
import { graphileLogger } from './graphile-logger.js';

/**
 * graphile-worker's schema (`graphile_worker`), installed and migrated by graphile-worker itself. Every process
 * needs it before the first event is recorded, because the outbox handler enqueues jobs with its SQL API, so it is
 * installed at start also where no worker runs.
 */
@Injectable()
export class JobQueueSchema {
  private readonly logger = new Logger(JobQueueSchema.name);
  private installing: Promise<void> | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Installs or upgrades the schema once per process; later calls wait for the same work. */
  install(): Promise<void> {
    this.installing ??= this.migrate();
    return this.installing;
  }

  private async migrate(): Promise<void> {
    if (!this.config.databaseUrl) throw new Error('The job queue needs DATABASE_URL');
    await runMigrations({
      connectionString: this.config.databaseUrl,
      logger: graphileLogger(this.logger),
    });
  }
}
