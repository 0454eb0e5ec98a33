import type { PoolConfig } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

/**
 * What sits between the service and PostgreSQL. `transaction`: a pooler in transaction mode (PgBouncer's
 * `pool_mode = transaction`), which hands each transaction to any of its server connections: nothing may outlive a
 * transaction on a connection, and no startup parameter it refuses may be sent. `none`: PostgreSQL itself, or a
 * pooler in session mode.
 */
export type DatabasePooler = 'none' | 'transaction';

export interface DatabaseConnectionOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
  pooler?: DatabasePooler;
  /** PostgreSQL itself for the process's session connection (DatabaseSession), past a transaction pooler. */
  sessionUrl?: string;
  /** STATEMENT_TIMEOUT_MS unless given (the tests shorten it). */
  statementTimeoutMs?: number;
}

/** A statement that hangs (a lock never released, a server in trouble) fails instead of holding a request forever. */
export const STATEMENT_TIMEOUT_MS = 15_000;

/** The `pg` pool's settings: the application's pool (`PG_POOL`) and TypeORM's (migrations, CLI) alike. */
export function poolConfig({
  url,
  poolSize = 10,
  applicationName = 'tollgate',
  pooler = 'none',
  statementTimeoutMs = STATEMENT_TIMEOUT_MS,
}: DatabaseConnectionOptions): PoolConfig {
  return {
    connectionString: url,
    max: poolSize,
    application_name: applicationName,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    // A transaction pooler refuses it as a startup parameter (and could not keep it: its server connections are
    // shared): there each transaction sets it for itself (Database.transaction).
    ...(pooler === 'none' && { statement_timeout: statementTimeoutMs }),
  };
}

/**
 * TypeORM's description of the database and its migrations, for the migration runner and (with the entities,
 * src/data-source.ts) the TypeORM CLI. The running service queries through its own pool (`PG_POOL`), configured by
 * `poolConfig`.
 */
export function dataSourceOptions(options: DatabaseConnectionOptions) {
  return {
    type: 'postgres',
    url: options.url,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    // gen_random_uuid() is built into PostgreSQL 13+: no extension to install (managed servers often forbid it).
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: poolConfig(options),
  } satisfies DataSourceOptions;
}
