import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Database } from '../database/database.service.js';
import { sql } from '../database/sql.js';

const PING_TIMEOUT_MS = 2000;

/** Pings PostgreSQL and reports the round trip, or `down` with a short reason when it does not answer in time. */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    private readonly db: Database,
    private readonly health: HealthIndicatorService,
  ) {}

  async check() {
    const indicator = this.health.check('database');
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.db.run(sql`SELECT 1`),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
        }),
      ]);
      return indicator.up({ latencyMs: Math.round((performance.now() - started) * 100) / 100 });
    } catch (error) {
      const message = error instanceof Error && error.message === 'timeout' ? 'timeout' : 'unreachable';
      return indicator.down({ message });
    } finally {
      clearTimeout(timer);
    }
  }
}
