import { DataSource, MigrationExecutor } from 'typeorm';
import { dataSourceOptions, type DatabasePooler } from './data-source.js';

/** Arbitrary constant: the advisory lock that lets only one starting instance run migrations at a time. */
const MIGRATION_LOCK = 7_220_041;

/**
 * Runs the committed migrations before the app starts. Several instances may start at once against one database;
 * the advisory lock serialises them, and each one after the first finds nothing left to do.
 *
 * The lock, the look at what is applied and the migrations themselves share one transaction: a transaction lock is
 * released by the COMMIT that makes the migrations visible, and a transaction pooler keeps a transaction on one
 * server connection (a session lock would be taken on one and released, or not, on another). A failing migration
 * rolls them all back.
 */
export async function runMigrations(url: string, pooler: DatabasePooler = 'none'): Promise<string[]> {
  const dataSource = new DataSource({
    ...dataSourceOptions({ url, poolSize: 2, applicationName: 'tollgate-migrate', pooler }),
  });
  await dataSource.initialize();
  try {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      try {
        await runner.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
        const executor = new MigrationExecutor(dataSource, runner);
        executor.transaction = 'all';
        const applied = await executor.executePendingMigrations();
        await runner.commitTransaction();
        return applied.map((migration) => migration.name);
      } catch (error) {
        await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
    } finally {
      await runner.release();
    }
  } finally {
    await dataSource.destroy();
  }
}
