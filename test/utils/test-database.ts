import pg from 'pg';

/**
 * Each jest worker gets its own database on the server the global setup started (or TEST_DATABASE_URL), created on
 * first use. Files of one worker run one after another, so a file may empty it at start without disturbing others.
 */
export async function workerDatabaseUrl(): Promise<string> {
  const admin = process.env.TEST_ADMIN_DATABASE_URL;
  if (!admin) throw new Error('TEST_ADMIN_DATABASE_URL is unset: run the tests through jest (npm test)');
  const name = `tollgate_test_w${process.env.JEST_WORKER_ID ?? '1'}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client
        .query(`CREATE DATABASE ${client.escapeIdentifier(name)}`)
        .catch((error: { code?: string }) => {
          if (error.code !== '42P04' && error.code !== '23505') throw error;
        });
    }
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Empties the service's tables (the migrations table itself stays). */
export async function truncateAll(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name FROM pg_tables
       WHERE schemaname = 'public' AND tablename <> 'migrations'`,
    );
    if (rows.length > 0) await client.query(`TRUNCATE ${rows.map((row) => row.name).join(', ')} CASCADE`);
  } finally {
    await client.end();
  }
}
