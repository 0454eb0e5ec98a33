import type { PoolConfig } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

export interface DatabaseConnectionOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
}

/** The `pg` pool's settings: the application's pool (`PG_POOL`) and TypeORM's (migrations, CLI) alike. */
export function poolConfig({
  url,
  poolSize = 10,
  applicationName = 'tollgate',
}: DatabaseConnectionOptions): PoolConfig {
  return {
    connectionString: url,
    max: poolSize,
    application_name: applicationName,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    // A query that hangs (a lock never released, a server in trouble) fails instead of holding a request forever.
    statement_timeout: 15_000,
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
