import { DataSource, type DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

export interface DatabaseConnectionOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
}

/** The one description of the database, shared by the app, the migration runner and the TypeORM CLI. */
export function dataSourceOptions({
  url,
  poolSize = 10,
  applicationName = 'tollgate',
}: DatabaseConnectionOptions) {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    // gen_random_uuid() is built into PostgreSQL 13+: no extension to install (managed servers often forbid it).
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      application_name: applicationName,
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
      // A query that hangs (a lock never released, a server in trouble) fails instead of holding a request forever.
      statement_timeout: 15_000,
    },
  } satisfies DataSourceOptions;
}

/** For the TypeORM CLI (`migration:generate`, `migration:run`): reads DATABASE_URL. */
export default new DataSource(
  dataSourceOptions({ url: process.env.DATABASE_URL ?? 'postgres://localhost/tollgate' }),
);
