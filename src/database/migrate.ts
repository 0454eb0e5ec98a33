import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source.js';

/** Arbitrary constant: the advisory lock that lets only one starting instance run migrations at a time. */
const MIGRATION_LOCK = 7_220_041;

/**
 * Runs the committed migrations before the app starts. Several instances may start at once against one database;
 * the advisory lock serialises them, and each one after the first finds nothing left to do.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource({
    ...dataSourceOptions({ url, poolSize: 2, applicationName: 'tollgate-migrate' }),
  });
  await dataSource.initialize();
  try {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
      try {
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        return applied.map((migration) => migration.name);
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
      }
    } finally {
      await runner.release();
    }
  } finally {
    await dataSource.destroy();
  }
}
