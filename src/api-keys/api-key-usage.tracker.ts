import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ApiKeysRepository } from './api-keys.repository.js';

/** `lastUsedAt` is written at most once a minute per key. */
const WRITE_EVERY_MS = 60_000;
const FLUSH_EVERY_MS = 1_000;

/**
 * Records key use off the request path: a request only touches an in-memory map; a timer writes the pending times
 * in one batched UPDATE. At most one write per key per minute from each instance.
 */
@Injectable()
export class ApiKeyUsageTracker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyUsageTracker.name);
  private readonly lastWritten = new Map<string, number>();
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly repository: ApiKeysRepository) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  touch(keyId: string, at = Date.now()): void {
    const written = this.lastWritten.get(keyId);
    if (written !== undefined && at - written < WRITE_EVERY_MS) return;
    this.lastWritten.set(keyId, at);
    this.pending.set(keyId, new Date(at));
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.repository.recordLastUse(batch);
    } catch (error) {
      this.logger.warn(`recording API key use failed: ${(error as Error).message}`);
    }
  }
}
