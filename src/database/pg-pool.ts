import { Logger, type Provider } from '@nestjs/common';
import { Pool } from 'pg';
import { poolConfig, type DatabaseConnectionOptions } from './data-source.js';

/** The injection token of the application's `pg` pool. */
export const PG_POOL = Symbol('PG_POOL');

export function pgPoolProvider(options: DatabaseConnectionOptions): Provider {
  return {
    provide: PG_POOL,
    useFactory: (): Pool => {
      const pool = new Pool(poolConfig(options));
      // An idle connection the server drops emits 'error' on the pool; unhandled, it would end the process. The
      // pool discards that connection by itself and opens a new one when next needed.
      const logger = new Logger('Database');
      pool.on('error', (error) => logger.warn(`an idle database connection failed: ${error.message}`));
      return pool;
    },
  };
}
