import { Logger, type Provider } from '@nestjs/common';
import { Pool } from 'pg';
import { isConnectionFailure } from './connection-failure.js';
import { DatabaseAvailability } from './database-availability.js';
import { poolConfig, type DatabaseConnectionOptions } from './data-source.js';

/** The injection token of the application's `pg` pool. */
export const PG_POOL = Symbol('PG_POOL');

export function pgPoolProvider(options: DatabaseConnectionOptions): Provider {
  return {
    provide: PG_POOL,
    inject: [DatabaseAvailability],
    useFactory: (availability: DatabaseAvailability): Pool => {
      const pool = new Pool(poolConfig(options));
      const logger = new Logger('Database');
      // A connection the server drops (a stop, a restart, a network cut) emits 'error' on its client, and an
      // unhandled 'error' event ends the process. The pool listens only while a client is idle, and a client
      // handed straight to a waiting connect() has no listener until its user adds one (node-postgres#2762): so
      // every client gets a listener of its own for its whole life. The pool discards a broken client by itself.
      const onError = (error: Error): void => {
        // Its clients are being closed on purpose: pool.end() resolves before their sockets have, so a server stopped
        // right after (the embedded one, at shutdown) still reaches some of them. No outage to report.
        if (pool.ending) return;
        if (isConnectionFailure(error)) availability.lost(error);
        else logger.warn(`a database connection failed: ${error.message}`);
      };
      pool.on('connect', (client) => client.on('error', onError));
      // The pool re-emits an idle client's error: reported already, unless the client never connected.
      pool.on('error', (error, client) => {
        if (!client.listeners('error').includes(onError)) onError(error);
      });
      return pool;
    },
  };
}
