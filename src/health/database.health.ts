import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Database } from '../database/database.service.js';

const PING_TIMEOUT_MS = 2000;

interface Ping {
  up: boolean;
  latencyMs?: number;
  message?: string;
}

/** Pings PostgreSQL and reports the round trip, or `down` with a short reason when it does not answer in time. */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    private readonly db: Database,
    private readonly health: HealthIndicatorService,
  ) {}

  async check() {
    const indicator = this.health.check('database');
    const ping = await this.ping();
    return ping.up
      ? indicator.up({ latencyMs: ping.latencyMs! })
      : indicator.down({ message: ping.message! });
  }

  private async ping(): Promise<Ping> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.db.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
        }),
      ]);
      return { up: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    } catch (error) {
      return {
        up: false,
        message: error instanceof Error && error.message === 'timeout' ? 'timeout' : 'unreachable',
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
