import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { connectionFailureReason } from '../database/connection-failure.js';
import { Database } from '../database/database.service.js';
import { sql } from '../database/sql.js';

const PING_TIMEOUT_MS = 2000;

/**
 * `timeout`, `too_many_connections` (the server answers but has no connection slot for this instance: a connection
 * budget to fix, docs/operations.md) or `unreachable`.
 */
function downReason(error: unknown): string {
  if (error instanceof Error && error.message === 'timeout') return 'timeout';
  const { cause } = error as { cause?: unknown };
  return connectionFailureReason(cause) === 'too_many_connections' ? 'too_many_connections' : 'unreachable';
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
      return indicator.down({ message: downReason(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}
